"""Every distribution the core imports at module level is a declared dependency of gym-mcp.

An import that only works because some dependency happens to pull the package in (``httpx2``
and ``mcp_types`` came with ``mcp``) breaks the day that dependency changes its own list, which
is what widening the ``mcp`` pin to a range would invite. Imports inside ``try`` (an optional
extra, reported with `DependencyMissing`) and under ``TYPE_CHECKING`` are not installs.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib

from tests.conftest import ROOT

CORE = [ROOT / "gym_mcp", ROOT / "servers", ROOT / "synth"]

EXTRA_ROOMS = {ROOT / "gym_mcp" / "openenv": "openenv"}
"""Rooms that are an extra's: their package only imports after checking the extra is installed
(`DependencyMissing` otherwise), so their modules may import what that extra declares."""


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalized (PEP 503)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _module_level_imports(source: str) -> set[str]:
    """Top-level names of what ``source`` imports outside functions, ``try`` and ``if``."""
    found = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_every_module_level_import_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_name(r) for r in project["dependencies"]}
    distributions = importlib.metadata.packages_distributions()
    undeclared: dict[str, list[str]] = {}
    for folder in CORE:
        for path in sorted(folder.rglob("*.py")):
            allowed = set(declared)
            for room, extra in EXTRA_ROOMS.items():
                if room in path.parents:
                    allowed |= {_name(r) for r in project["optional-dependencies"][extra]}
            for top in _module_level_imports(path.read_text(encoding="utf-8")):
                if top in sys.stdlib_module_names or top == "gym_mcp" or top == "__future__":
                    continue
                names = {_name(d) for d in distributions.get(top, [top])}
                if not names & allowed:
                    undeclared.setdefault(top, []).append(str(path.relative_to(ROOT)))
    assert undeclared == {}, f"imported but not in [project] dependencies: {undeclared}"


def test_the_scan_sees_module_level_imports_only() -> None:
    source = (
        "import httpx2\nfrom mcp_types import X\n"
        "try:\n    import ray\nexcept ImportError:\n    pass\n"
        "if TYPE_CHECKING:\n    import torch\n"
        "def f():\n    import transformers\n"
    )
    assert _module_level_imports(source) == {"httpx2", "mcp_types"}
