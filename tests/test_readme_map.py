"""The README's map of the folders ("What is here") is true of the tree.

Every path the map names exists (a name ending in `/` is a folder), and every package folder of the
code is named in it. A package folder is a top-level folder holding an `__init__.py` (the apps, the
site, the benchmarks, and any shared package added later) and every folder below it that holds an
`__init__.py`, except Django's plumbing (`migrations`, `management`, `templatetags`) and what lies
under it. `tests/` is not a package: the map names it once, as the suite mirrors the packages.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUMBING = frozenset({"migrations", "management", "templatetags", "__pycache__"})


def map_rows(readme: str) -> list[str]:
    """The first cell of each row of the table under "## What is here"."""
    section = readme.split("## What is here", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    cells = [row.split("|")[1].strip() for row in rows]
    return [cell for cell in cells if cell and cell != "Folder" and not set(cell) <= set("-: ")]


def named_paths(readme: str) -> list[str]:
    """Every path in backticks in the map's first column."""
    return [name for cell in map_rows(readme) for name in re.findall(r"`([^`]+)`", cell)]


def package_folders(root: Path) -> list[str]:
    """Top-level folders holding an `__init__.py`, and their sub-packages outside Django's plumbing."""
    found = []
    for top in sorted(p for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()):
        if top.name.startswith(".") or top.name == "tests":
            continue
        found.append(f"{top.name}/")
        for init in sorted(top.rglob("__init__.py")):
            folder = init.parent
            relative = folder.relative_to(root)
            if folder == top or PLUMBING & set(relative.parts):
                continue
            found.append(f"{relative.as_posix()}/")
    return found


def test_every_path_the_map_names_exists():
    names = named_paths((ROOT / "README.md").read_text())
    assert len(names) >= 10, f"the README's map looks empty: {names}"
    missing = [
        name for name in names
        if not ((ROOT / name).is_dir() if name.endswith("/") else (ROOT / name).exists())
    ]  # fmt: skip
    assert missing == [], f"the README's map names paths that do not exist: {missing}"


def test_every_package_folder_is_on_the_map():
    names = set(named_paths((ROOT / "README.md").read_text()))
    unmapped = [folder for folder in package_folders(ROOT) if folder not in names]
    assert unmapped == [], f"package folders missing from the README's map (\"What is here\"): {unmapped}"


def test_the_readme_points_at_the_architecture_and_the_engine_spec():
    readme = (ROOT / "README.md").read_text()
    for doc in ("ARCHITECTURE.md", "ENGINE-SPEC.md"):
        assert doc in readme and (ROOT / "docs" / doc).is_file()


def test_the_package_rule_sees_sub_packages_and_skips_plumbing(tmp_path):
    for folder in ("app/engine/recall", "app/migrations", "app/management/commands", "app/data", "tests/app"):
        (tmp_path / folder).mkdir(parents=True)
    for folder in ("app", "app/engine", "app/engine/recall", "app/migrations", "app/management",
                   "app/management/commands", "tests/app"):  # fmt: skip
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "tests" / "__init__.py").write_text("")
    assert package_folders(tmp_path) == ["app/", "app/engine/", "app/engine/recall/"]
