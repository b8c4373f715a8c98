"""The code stays lint-clean and type-clean (ruff and mypy, configured in pyproject.toml)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_clean(tmp_path: Path) -> None:
    # The installed layout maps servers/, synth/ and train/ to gym_mcp.servers etc.; mypy cannot
    # follow an editable install's import hook, so check a symlinked copy of the installed layout.
    pkg = tmp_path / "gym_mcp"
    pkg.mkdir()
    for entry in (ROOT / "gym_mcp").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for sub in ("servers", "synth", "train"):
        (pkg / sub).symlink_to(ROOT / sub)
    env = {**os.environ, "MYPY_CACHE_DIR": str(tmp_path / ".mypy_cache")}
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "gym_mcp"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
