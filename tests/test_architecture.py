"""The walls between the rooms hold: import-linter's contracts (pyproject.toml) and module-level imports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _installed_layout(dest: Path) -> Path:
    """A copy of the sources laid out as installed (servers/, synth/, train/ inside gym_mcp/)."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "gym_mcp", dest / "gym_mcp", ignore=ignore)
    for sub in ("servers", "synth", "train"):
        shutil.copytree(ROOT / sub, dest / "gym_mcp" / sub, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", "pyproject.toml", "--no-cache", "--no-logo"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_import_contracts_are_kept(tmp_path: Path) -> None:
    out = _lint(_installed_layout(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("rewards/outcome.py", "import gym_mcp.train.losses", "Synthesis and rewards never import training"),
        ("servers/banking/models.py", "import gymnasium", "Bundled servers import nothing of the gym"),
        ("state/sqlite.py", "from gym_mcp.env import mcp", "Rooms import only the rooms below them"),
        ("live/warm_pool.py", "import torch", "The core imports no torch"),
        ("train/data.py", "from gym_mcp.live import warm_pool", "Training reaches servers only through environments"),
        ("env/core.py", "from gym_mcp.wrappers import perturb", "Environments never import wrappers"),
        # type-checking imports count: a cycle hidden behind TYPE_CHECKING is still a cycle
        (
            "tasks/task.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gym_mcp.episode import Episode",
            "Rooms import only the rooms below them",
        ),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    root = _installed_layout(tmp_path)
    path = root / "gym_mcp" / module
    path.write_text(path.read_text() + f"\n{line}  # added by the test\n")
    out = _lint(root)
    assert out.returncode != 0
    broken = out.stdout.split("Broken contracts", 1)[-1]
    assert contract in " ".join(broken.split()), out.stdout


ENV_INTERNALS = re.compile(r"\.core\b")
"""An attribute access of an environment's internals (``env.unwrapped.core``, ``self.env.core``)."""


def test_nothing_outside_env_reads_env_internals() -> None:
    """What a step did is in ``info`` and ``env.unwrapped.episode()``: no code, test or page reaches ``.core``.

    Only ``gym_mcp/env/`` names it, and the BFCL environment (an environment itself) its own
    ``self.core``.
    """
    roots = ["gym_mcp", "servers", "synth", "train", "tests", "benchmarks", "examples", "docs"]
    files = [p for root in roots for p in (ROOT / root).rglob("*") if p.suffix in (".py", ".md")]
    # installed third-party code (benchmarks/servers/ holds the benchmark's own npm and venv) is not ours
    files = [p for p in files if not {".venv", "node_modules"} & set(p.relative_to(ROOT).parts)]
    assert len(files) > 300
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("gym_mcp/env/") or rel == "tests/test_architecture.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.replace("gym_mcp.env.core", "")  # the module's own name
            code = code.replace("openenv.core", "")  # OpenEnv's package, not an environment's attribute
            if rel == "gym_mcp/bfcl/env.py":
                code = code.replace("self.core", "")
            if ENV_INTERNALS.search(code):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_core_loads_no_ml_library_at_import() -> None:
    """Every module outside gym_mcp.train imports without torch, transformers, peft, accelerate, trl."""
    code = (
        "import importlib, pkgutil, sys, gym_mcp\n"
        "skip = ('gym_mcp.train', 'gym_mcp.cli.__main__')\n"
        "for m in pkgutil.walk_packages(gym_mcp.__path__, 'gym_mcp.'):\n"
        "    if not m.name.startswith(skip):\n"
        "        importlib.import_module(m.name)\n"
        "import gym_mcp.servers.banking, gym_mcp.synth\n"
        "bad = sorted({n.split('.')[0] for n in sys.modules} & {'torch', 'transformers', 'peft', 'accelerate', 'trl'})\n"
        "print('loaded:', bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "loaded: []", out.stdout + out.stderr


def test_a_bundled_server_process_imports_no_gym() -> None:
    """``python -m gym_mcp.servers.banking`` imports mcp, SQLAlchemy and its own package: nothing of the gym."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gym_mcp.servers.banking", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "gym_mcp.servers.banking.tools" in imported
    gym_modules = sorted(m for m in imported if m.startswith("gym_mcp") and not m.startswith("gym_mcp.servers"))
    assert gym_modules == ["gym_mcp", "gym_mcp.errors"], gym_modules
    for forbidden in ("gymnasium", "numpy"):
        assert forbidden not in imported, f"a server process imported {forbidden}"
