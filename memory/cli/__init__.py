"""The `tideline` command line: one module per subcommand, each a thin layer over a service.

Every subcommand takes `--json`: it then prints one JSON document on stdout and exits 0, or
prints `{"error": {"kind": ..., "message": ...}}` and exits 2 for a refused or invalid request.

The `tideline` command finds its subcommands in every installed app whose `cli` package has a
`SUBCOMMANDS` dict (name → dotted module path), so an app above memory adds its own without memory
naming it. The command imports the modules once Django is set up, not this package: the console
script imports `memory.cli.common` before that.
"""

SUBCOMMANDS = {
    "add": "memory.cli.adding", "recall": "memory.cli.recalling", "context": "memory.cli.recalling",
    "explain": "memory.cli.recalling", "import": "memory.cli.importing", "export": "memory.cli.exporting",
    "demo": "memory.cli.demo", "serve": "memory.cli.serve", "eval": "memory.cli.evaluating",
    "gc": "memory.cli.maintaining", "dream": "memory.cli.maintaining", "reembed": "memory.cli.reembedding",
    "keys": "memory.cli.keys", "backup": "memory.cli.backups", "restore": "memory.cli.backups",
    "scan": "memory.cli.scanning",
}  # fmt: skip
