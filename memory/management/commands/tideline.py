"""`python manage.py tideline SUBCOMMAND …` — the same as the `tideline` console script."""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from functools import cache
from types import ModuleType

from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandParser

from memory.apps import app_packages
from memory.cli import common
from memory.services.errors import RequestError
from memory.services.writes.policy import TidelineError


@cache
def subcommands() -> dict[str, ModuleType]:
    """Every installed app's `cli.SUBCOMMANDS`, in INSTALLED_APPS order (memory names no other app)."""
    found: dict[str, ModuleType] = {}
    owners: dict[str, str] = {}
    for app, package in app_packages("cli"):
        for name, dotted in getattr(package, "SUBCOMMANDS", {}).items():
            if name in found:
                raise ImproperlyConfigured(f"`tideline {name}` is declared by both {owners[name]} and {app}")
            found[name], owners[name] = importlib.import_module(dotted), app
    return found


class UsageAwareParser(CommandParser):
    """argparse answers a usage error with text on stderr; a caller that asked for --json gets the
    `{"error": {"kind": "usage", …}}` document on stdout instead (same exit code, 2)."""

    json_errors = False  # set by Command.run_from_argv from the real command line

    def error(self, message):
        if self.called_from_command_line and UsageAwareParser.json_errors:
            common.print_error(True, "usage", f"{message} (see `{self.prog} --help`)")
            sys.exit(2)
        super().error(message)


class Command(BaseCommand):
    help = "Tideline: long-term memory for AI agents. Run `tideline SUBCOMMAND --help` for details."
    # Django's own options still work, but they are about Django, not Tideline: kept out of the help.
    suppressed_base_arguments = {"--verbosity", "--settings", "--pythonpath", "--traceback", "--no-color",
                                 "--force-color", "--skip-checks"}  # fmt: skip

    def run_from_argv(self, argv) -> None:
        UsageAwareParser.json_errors = common.wants_json(argv[2:])
        super().run_from_argv(argv)

    def add_arguments(self, parser) -> None:
        for action in parser._actions:  # Django adds --skip-checks without asking the set above
            if "--skip-checks" in action.option_strings:
                action.help = argparse.SUPPRESS
        # BaseCommand builds a CommandParser before calling this; its subparsers take the parser's own
        # class, so switching the class here makes every level answer usage errors the same way.
        parser.__class__ = UsageAwareParser
        # The console script runs as `tideline tideline …` underneath; its usage shows `tideline …`.
        parser.prog = parser.prog.replace("tideline tideline", "tideline")
        sub = parser.add_subparsers(dest="subcommand", required=True, metavar="SUBCOMMAND")
        for name, module in subcommands().items():
            text = module.HELP[name] if isinstance(module.HELP, dict) else module.HELP
            child = sub.add_parser(name, help=text, description=text)
            # Modules that serve several subcommands give each only the options it uses, so an
            # option of one (`dream --undo`) is refused by another (`gc --undo`).
            if "verb" in inspect.signature(module.add_arguments).parameters:
                module.add_arguments(child, verb=name)
            else:
                module.add_arguments(child)
            child.add_argument("--json", action="store_true", help="print one JSON document (errors exit 2)")

    def check(self, *args, **kwargs) -> None:
        # Django prints failed system checks as a multi-line report and exits 1; a broken deployment
        # (e.g. a key store that is not this database's) is one line and exit 2 here, like every refusal.
        problems = [e for e in checks.run_checks(include_deployment_checks=False) if not e.is_silenced()]
        serious = [e for e in problems if e.is_serious()]
        for warning in (e for e in problems if not e.is_serious()):
            sys.stderr.write(f"warning: {warning.msg} ({warning.id})\n")
        if serious:
            raise common.EnvironmentProblem("; ".join(f"{e.msg} ({e.id})" for e in serious), kind="configuration")

    def execute(self, *args, **options):
        module = subcommands().get(options.get("subcommand", ""))
        if options.get("subcommand") in getattr(module, "SKIP_CHECKS", ()):
            options["skip_checks"] = True  # e.g. restore: it mends what the checks would refuse
        try:
            try:
                return super().execute(*args, **options)
            except (RequestError, TidelineError) as error:
                common.fail(options, error)
            except Exception as error:
                problem = common.environment_problem(error)
                if problem is None:
                    raise
                common.fail(options, problem)
        except common.CliExit as exit_:
            sys.stdout.flush()
            sys.exit(exit_.code)

    def handle(self, *args, **options) -> None:
        subcommands()[options["subcommand"]].run(options)
