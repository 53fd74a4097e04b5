from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory"

    def ready(self) -> None:
        from memory import checks  # noqa: F401 - registers the system checks
