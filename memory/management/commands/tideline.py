"""`python manage.py tideline SUBCOMMAND …` — the same as the `tideline` console script."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from memory.cli import (
    adding,
    bench,
    common,
    demo,
    evaluating,
    exporting,
    importing,
    maintaining,
    recalling,
    reembedding,
    serve,
)
from memory.services.errors import RequestError
from memory.services.policy import TidelineError

SUBCOMMANDS = {"add": adding, "recall": recalling, "context": recalling, "explain": recalling, "import": importing, "export": exporting, "demo": demo, "serve": serve, "bench": bench, "eval": evaluating, "gc": maintaining, "dream": maintaining, "contradictions": maintaining, "reembed": reembedding}


class Command(BaseCommand):
    help = "Tideline: long-term memory for AI agents. Run `tideline SUBCOMMAND --help` for details."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="subcommand", required=True, metavar="SUBCOMMAND")
        for name, module in SUBCOMMANDS.items():
            text = module.HELP[name] if isinstance(module.HELP, dict) else module.HELP
            child = sub.add_parser(name, help=text, description=text)
            module.add_arguments(child)
            child.add_argument("--json", action="store_true", help="print one JSON document (errors exit 2)")

    def handle(self, *args, **options) -> None:
        module = SUBCOMMANDS[options["subcommand"]]
        try:
            try:
                module.run(options)
            except (RequestError, TidelineError) as error:
                common.fail(options, error)
        except common.CliExit as exit_:
            sys.stdout.flush()
            sys.exit(exit_.code)
