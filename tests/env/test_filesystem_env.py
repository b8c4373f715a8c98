"""The filesystem environment (``gym_mcp/Filesystem-v0``): escapes refused, and reset undoes every write.

Every attempt to leave the workspace goes through `gym.make` and a real server (in-process and
as a stdio process): ``..`` above the root, absolute host paths, links that point out (one made
by a tool, one planted from outside), over-long names and NUL bytes. None of them may read or
change anything outside the root, and one reset must bring the tree back byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from gym_mcp.state import DirectoryState


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry under a folder: file bytes, "dir", or "-> target" for a link."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = path.read_bytes()
    return out


@pytest.fixture(params=["inprocess", "stdio"])
def env(request: pytest.FixtureRequest) -> Iterator[Any]:
    e = gym.make("gym_mcp/Filesystem-v0", transport=request.param, max_steps=200)
    yield e
    e.close()


def test_escapes_are_refused_and_reset_undoes_every_write(env: Any, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not read me")
    before_outside = _tree(outside)
    env.reset(seed=0)
    state = env.unwrapped.state
    assert isinstance(state, DirectoryState)
    root = Path(state.location)
    initial = state.fingerprint()
    up = os.path.relpath(outside, root)  # "../../..../outside": a real way out, if it were allowed

    def call(name: str, **arguments: Any) -> str:
        obs, *_ = env.step({"name": name, "arguments": arguments})
        return str(obs)

    refused = [
        call("read_file", path=f"{up}/secret.txt"),
        call("read_file", path=str(outside / "secret.txt")),  # absolute: read below the root, not found
        call("write_file", path=f"{up}/planted.txt", content="x"),
        call("copy", source="README.md", destination=f"{up}/copied.md"),
        call("move", source="LICENSE", destination=f"{up}/moved"),
        call("create_symlink", path="out", target=up),
        call("create_directory", path=f"docs/../../{up}/made"),
        call("write_file", path="n" * 300 + ".md", content="x"),
        call("write_file", path="notes/a\x00b.md", content="x"),
        call("extract_archive", path="archives/backup-2025-01.zip", destination=f"{up}/unzipped"),
    ]
    assert all(obs.startswith("Error") for obs in refused), refused
    assert "do not read me" not in " ".join(refused)  # the secret's content never came back

    # A link that points out, planted behind the agent's back: following it is refused too.
    os.symlink(outside, root / "docs" / "shortcut")
    for obs in (
        call("read_file", path="docs/shortcut/secret.txt"),
        call("write_file", path="docs/shortcut/planted.txt", content="x"),
        call("list_directory", path="docs/shortcut"),
        call("delete", path="docs/shortcut/secret.txt"),
    ):
        assert obs.startswith("Error"), obs

    # Writes that are allowed, of every kind.
    for name, arguments in [
        ("write_file", {"path": "notes/new.md", "content": "hello"}),
        ("append_file", {"path": "README.md", "content": "more"}),
        ("chmod", {"path": "LICENSE", "mode": "600"}),
        ("create_symlink", {"path": "latest.md", "target": "CHANGELOG.md"}),
        ("delete_directory", {"path": "logs"}),
        ("move", {"source": "notes/ideas.md", "destination": "docs"}),
        ("extract_archive", {"path": "archives/backup-2025-01.zip", "destination": "restored"}),
        ("empty_trash", {}),
    ]:
        assert not call(name, **arguments).startswith("Error"), name
    assert state.fingerprint() != initial
    assert _tree(outside) == before_outside  # nothing outside was read into, written or removed

    env.reset(seed=0)
    assert state.fingerprint() == initial
    assert not (root / "docs" / "shortcut").exists() and not (root / "restored").exists()
    assert _tree(outside) == before_outside


def test_errors_are_counted_and_the_episode_goes_on(env: Any) -> None:
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step({"name": "read_file", "arguments": {"path": "../../etc/passwd"}})
    assert info["tool_errors"] == 1 and not terminated and not truncated
    obs, *_ = env.step({"name": "read_file", "arguments": {"path": "LICENSE"}})
    assert "Apache" in str(obs)
