"""The engine is pure: no Django, no models, no services (ARCHITECTURE.md §1)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("django", "memory.models", "governance.models", "memory.services", "memory.selectors", "memory.sealing")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_engine_packages_import_nothing_from_django_or_the_app_layers():
    engine_files = [p for p in ROOT.glob("*/engine/**/*.py")]
    assert engine_files, "expected engine modules"
    offenders = {
        str(path.relative_to(ROOT)): name
        for path in engine_files
        for name in _imports(path)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    }
    assert offenders == {}
