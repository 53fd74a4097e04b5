"""Services: the only code that both calls the engine and touches the ORM (ARCHITECTURE.md §1)."""
