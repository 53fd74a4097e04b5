"""Dependencies point one way (ARCHITECTURE.md §1): bench over the site over governance over memory,
and `tideline_kit` (helpers both apps use) below them all.

- memory never names governance: no import (also inside a function), no module path or URL name in
  a string, and its templates never name governance's URLs or the context governance's context
  processors add. Memory tells governance things through `memory.signals`; where a memory page
  shows governance's pages, the site's `site_pages` and `_workspace_nav.html` join them.
- neither app imports the site or the benchmarks; `tideline_kit` imports no app, no site, no bench.
- no import circles among the modules of the apps, the site and the kit, counting imports inside
  functions and under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
APPS = ("memory", "governance")
ABOVE_THE_APPS = ("tideline_site", "bench")
KIT = "tideline_kit"
GRAPHED = ("memory", "governance", "tideline_site", KIT)


def _under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def _is_governance(name: str) -> bool:
    return _under(name, ("governance",)) or name.startswith("governance:")  # a module, or a URL name


def _governance_references(path: Path) -> list[str]:
    """Every way a module can reach governance: imports anywhere (also inside functions), and names
    handed over as strings (`import_module("governance…")`, `apps.get_model("governance", …)`, a
    migration's `("governance", "0001_…")` dependency, a URL name: `reverse("governance:…")`)."""
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


def test_the_check_sees_governance_url_names_in_python(tmp_path):
    module = tmp_path / "views.py"
    module.write_text("from django.shortcuts import redirect\nfrom django.urls import reverse\n"
                      "def f(request):\n    return redirect(reverse('governance:export-events', args=['w']))\n"
                      "def g(request):\n    return redirect('governance:review-list', 'w')\n")  # fmt: skip
    found = sorted(_governance_references(module))
    assert found == ["'governance:export-events' (line 4)", "'governance:review-list' (line 6)"]


# --- templates ------------------------------------------------------------------------------------

_TAG = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)


def governance_context_names(path: Path = ROOT / "governance" / "context_processors.py") -> set[str]:
    """The names governance's context processors put into every template's context (their dicts' keys)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            names |= {key.value for key in node.value.keys if isinstance(key, ast.Constant)}
    return names


def template_governance_references(folder: Path, context_names: set[str]) -> dict[str, list[str]]:
    """For each template under `folder`: the governance URL names (`{% url 'governance:…' %}`) and the
    governance context names its tags and variables use."""
    # A name on its own (not an attribute: `site_pages.open_review_count` is the site's).
    names = "|".join(map(re.escape, sorted(context_names)))
    word = re.compile(r"(?<![\w.])(" + names + r")\b") if context_names else None
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        refs = []
        for tag in _TAG.findall(path.read_text()):
            refs += re.findall(r"""["']governance:[\w-]+["']""", tag)
            if word is not None:
                # Only names outside quoted strings are variables.
                refs += word.findall(re.sub(r"""(["']).*?\1""", "", tag))
        if refs:
            found[str(path.relative_to(folder))] = refs
    return found


def test_memory_templates_never_name_governance_urls_or_context():
    names = governance_context_names()
    assert {"open_review_count", "can_create_workspace"} <= names
    assert any((ROOT / "templates" / "memory").glob("*.html"))
    offenders = template_governance_references(ROOT / "templates" / "memory", names)
    assert offenders == {}, f"memory's templates must not name governance (the site joins them): {offenders}"


def test_the_template_check_sees_url_names_and_context(tmp_path):
    (tmp_path / "page.html").write_text(
        "{% url 'memory:fact-list' w %} {% url 'governance:review-list' workspace.name %}\n"
        "<p>{{ open_review_count }} {% if can_create_workspace %}x{% endif %} {{ site_pages.open_review_count }}</p>"
        "{% include 'open_review_count.html' %}"
    )
    found = template_governance_references(tmp_path, {"open_review_count", "can_create_workspace"})
    assert found == {"page.html": ["'governance:review-list'", "open_review_count", "can_create_workspace"]}


# --- the site, the benchmarks and the kit ---------------------------------------------------------

_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.\w+)*(:\w+)?$")


def references_to(path: Path, packages: tuple[str, ...]) -> list[str]:
    """Imports of `packages` anywhere in the module (also inside functions), and strings that are one
    of their module paths (`"tideline_site.serving"`, `"bench.cli:main"`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _under(alias.name, packages)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _under(node.module, packages):
            found.append(f"from {node.module} import …")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.match(node.value)
              and _under(node.value.partition(":")[0], packages)):  # fmt: skip
            found.append(f"{node.value!r} (line {node.lineno})")
    return found


def _offenders(folders: tuple[str, ...], packages: tuple[str, ...]) -> dict[str, list[str]]:
    modules = sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))
    assert modules, folders
    return {str(p.relative_to(ROOT)): refs for p in modules if (refs := references_to(p, packages))}


def test_the_apps_never_import_the_site_or_the_benchmarks():
    offenders = _offenders(APPS, ABOVE_THE_APPS)
    assert offenders == {}, f"the apps must not depend on what sits above them (use {KIT} below them): {offenders}"


def test_the_kit_imports_no_app_no_site_no_benchmarks():
    offenders = _offenders((KIT,), (*APPS, *ABOVE_THE_APPS))
    assert offenders == {}, f"{KIT} sits below the apps: {offenders}"


def test_the_upward_check_sees_imports_inside_functions_and_module_paths(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from tideline_site.paging import numbered_pager\n"
                      "def f():\n    import bench.cli\n"
                      "APP = 'tideline_site.asgi:application'\nTEXT = 'see bench.training (the scripts)'\n")  # fmt: skip
    assert sorted(references_to(module, ABOVE_THE_APPS)) == [
        "'tideline_site.asgi:application' (line 4)", "from tideline_site.paging import …", "import bench.cli"]
    kit = tmp_path / "kit.py"
    kit.write_text("def f():\n    from memory.models import Fact\n")
    assert references_to(kit, (*APPS, *ABOVE_THE_APPS)) == ["from memory.models import …"]


# --- import circles -------------------------------------------------------------------------------


def module_graph(root: Path, packages: tuple[str, ...]) -> nx.DiGraph:
    """Modules of `packages` under `root`, an edge for every import of one by another wherever it
    stands (module level, inside a function, under TYPE_CHECKING); relative imports resolved."""
    modules: dict[str, tuple[Path, bool]] = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)

    def known(name: str) -> str | None:  # the module itself, or the package it names a member of
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = nx.DiGraph()
    for name, (path, is_package) in modules.items():
        graph.add_node(name)
        here = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here[: len(here) - node.level + 1] + [node.module or ""]).strip(".") if node.level else node.module
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if (found := known(target)) is not None and found != name:
                    graph.add_edge(name, found)
    return graph


def import_circles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_import_circles_among_the_apps_the_site_and_the_kit():
    graph = module_graph(ROOT, GRAPHED)
    assert graph.number_of_nodes() > 200 and graph.has_edge("governance.models", "memory.models")
    circles = import_circles(graph)
    assert circles == [], (
        f"import circles (a deferred import hides one, it does not break it): {circles}; move the shared "
        "piece below both, pass a callable in, or tell the other side through memory.signals"
    )


def test_the_circle_check_counts_imports_inside_functions_and_relative_ones(tmp_path):
    package = tmp_path / "app"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from app.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from ..c import g\n    return g\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app import a\n")
    (package / "d.py").write_text("from app import a\n")  # on the way in, not in the circle
    assert import_circles(module_graph(tmp_path, ("app",))) == [["app.a", "app.c", "app.sub.b"]]
