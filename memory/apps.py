import importlib
import importlib.util
from collections.abc import Iterator
from types import ModuleType

from django.apps import AppConfig, apps


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory"

    def ready(self) -> None:
        from memory import checks  # noqa: F401 - registers the system checks
        from memory.sealing import guard_with
        from memory.services.keys import binding

        guard_with(binding)  # the keyring checks the key store against the database's binding


def app_packages(suffix: str) -> Iterator[tuple[str, ModuleType]]:
    """(app name, its `<app>.<suffix>` package imported) for each installed app that has one, in
    INSTALLED_APPS order: how memory finds what an app above it adds (`tideline` subcommands,
    benchmark pages) without naming that app."""
    for config in apps.get_app_configs():
        package = f"{config.name}.{suffix}"
        try:
            if importlib.util.find_spec(package) is None:
                continue
        except ModuleNotFoundError:  # the app is a plain module, so it has no such package
            continue
        yield config.name, importlib.import_module(package)
