"""The documentation site builds with no warning (``mkdocs build --strict``).

Its examples run as tests from docs/conftest.py (Sybil); this checks the site itself: every
page in the nav exists, every link and cross-reference resolves, and the API reference is
generated from the docstrings as they are now, so a renamed function breaks this test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    if shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("mkdocs is not installed: the dev extra installs it (pip install -e '.[dev]')")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    index = (site / "index.html").read_text()
    assert "gym-mcp" in index
    # the two one-line commands sit in boxes that wrap them (docs/stylesheets/extra.css)
    assert index.count('class="wrap-commands"') == 2 and "stylesheets/extra.css" in index
    api = (site / "reference" / "api" / "index.html").read_text()
    assert "gym_mcp.env" in api or "MCPEnv" in api  # the reference was generated, not left empty


def _bash_blocks(path: Path) -> list[str]:
    text = path.read_text()
    return [block.split("```", 1)[0].strip() for block in text.split("```bash\n")[1:]]


def test_the_site_gives_the_readmes_two_commands() -> None:
    """The README's two commands (set up + main job, set up + tests) appear unchanged on the site,
    and the test command is what CI runs."""
    main_job, tests = _bash_blocks(ROOT / "README.md")[:2]
    assert main_job.endswith("gym-mcp train") and tests.endswith("python -m pytest")
    index = _bash_blocks(ROOT / "docs" / "index.md")
    assert main_job in index and tests in index
    assert tests in _bash_blocks(ROOT / "docs" / "getting-started.md")
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == tests


def test_the_readmes_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert blocks, "the README shows no Python example"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
