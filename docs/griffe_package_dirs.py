"""A Griffe extension for the API reference: the subpackages that live in folders of their own.

pyproject.toml maps ``gym_mcp.servers``, ``gym_mcp.synth`` and ``gym_mcp.train`` onto the top-level
folders servers/, synth/ and train/ (setuptools ``package-dir``). Griffe finds packages by
folder, so it would not see them under ``gym_mcp``; this loads each folder and attaches it where
the package-dir mapping puts it, so ``::: gym_mcp.synth`` renders under the name users import.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[1]


class PackageDirs(griffe.Extension):
    """Attach the package-dir subpackages to ``gym_mcp`` once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Load servers/, synth/ and train/ as members of ``gym_mcp``."""
        if pkg.name != "gym_mcp":
            return
        with (ROOT / "pyproject.toml").open("rb") as f:
            mapping: dict[str, str] = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
        for dotted, folder in mapping.items():
            parent, _, name = dotted.rpartition(".")
            if parent != pkg.name or name in pkg.members:
                continue
            module = loader.load(ROOT / folder, submodules=True)
            if isinstance(module, griffe.Module):
                pkg.set_member(name, module)
