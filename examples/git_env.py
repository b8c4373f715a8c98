"""The PyPI git MCP server (mcp-server-git) as an environment over a throwaway repository.

Run: python examples/git_env.py   (needs git and `pip install mcp-server-git`)
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import gymnasium as gym

import gym_mcp

# Fixed identities and dates make commits, and so fingerprints, identical from run to run.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.com",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T00:00:00",
    "GIT_COMMITTER_DATE": "2026-01-02T00:00:00",
}

repo = Path(tempfile.mkdtemp()) / "repo"
repo.mkdir()
for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "initial commit"]):
    subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True)
(repo / "notes.md").write_text("release notes\n")

env = gym.make(
    "gym_mcp/External-v0",
    name="git",
    command=[sys.executable, "-m", "mcp_server_git", "--repository", "{state}"],
    cwd="{state}",
    env=GIT_ENV,
    # the index holds file timestamps; the reflogs (.git/logs) the wall-clock time of each commit
    state=gym_mcp.DirectoryState(repo, ignore=[".git/index", ".git/logs/*"]),
)
env.reset(seed=0)
state = env.unwrapped.state
before = state.snapshot()
for call in (
    {"name": "git_add", "arguments": {"repo_path": ".", "files": ["notes.md"]}},
    {"name": "git_commit", "arguments": {"repo_path": ".", "message": "Add release notes"}},
):
    print(env.step(call)[0])
print("changed:", state.diff(before, state.snapshot()).summary())
env.reset(seed=0)
print("after reset, unchanged:", not state.diff(before, state.snapshot()))
env.close()
