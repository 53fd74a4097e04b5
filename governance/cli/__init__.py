"""Governance's `tideline` subcommands, found by the command's registry (memory/management/commands/tideline.py).

Values are dotted module paths, imported only once Django is set up; each module offers `HELP`,
`add_arguments(parser)` (or `add_arguments(parser, verb=…)`) and `run(options)`.
"""

SUBCOMMANDS = {"contradictions": "governance.cli.contradictions", "review": "governance.cli.review",
               "shred": "governance.cli.shred", "retention": "governance.cli.retention",
               "purge": "governance.cli.purge", "members": "governance.cli.members",
               "workspace": "governance.cli.workspace", "proposals": "governance.cli.proposals",
               "gold": "governance.cli.gold", "tokens": "governance.cli.tokens", "mcp": "governance.cli.mcp"}
