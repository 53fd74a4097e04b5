"""`tideline bench`, found by the `tideline` command's registry like every app's subcommands."""

SUBCOMMANDS = {"bench": "bench.cli.bench"}
