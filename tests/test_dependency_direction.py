"""Dependencies point one way: governance imports memory, memory never imports governance
(ARCHITECTURE.md §1). Memory tells governance things through `memory.signals` instead."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _is_governance(name: str) -> bool:
    return name == "governance" or name.startswith("governance.")


def _governance_references(path: Path) -> list[str]:
    """Every way a module can reach governance: imports anywhere (also inside functions), and names
    handed over as strings (`import_module("governance…")`, `apps.get_model("governance", …)`, a
    migration's `("governance", "0001_…")` dependency)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _is_governance(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _is_governance(node.module):
            found.append(f"from {node.module} import …")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_governance(node.value):
            found.append(f"{node.value!r} (line {node.lineno})")
    return found


def test_memory_never_imports_governance():
    modules = sorted((ROOT / "memory").rglob("*.py"))
    assert any("migrations" in p.parts for p in modules) and any("engine" in p.parts for p in modules)
    offenders = {str(p.relative_to(ROOT)): refs for p in modules if (refs := _governance_references(p))}
    assert offenders == {}, f"memory must not depend on governance: {offenders}"


def test_the_check_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from governance.models import ReviewItem\n    return ReviewItem\n"
                      "def g():\n    import governance.tasks\n"
                      "def h(apps):\n    return apps.get_model('governance', 'ReviewItem')\n")  # fmt: skip
    assert len(_governance_references(module)) == 3
