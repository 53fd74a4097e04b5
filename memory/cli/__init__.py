"""The `tideline` command line: one module per subcommand, each a thin layer over a service.

Every subcommand takes `--json`: it then prints one JSON document on stdout and exits 0, or
prints `{"error": {"kind": ..., "message": ...}}` and exits 2 for a refused or invalid request.
"""
