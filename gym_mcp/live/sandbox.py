"""A bubblewrap sandbox for MCP servers we did not write.

``ExternalSource(..., sandbox="bwrap")`` runs the server's command inside `bwrap`
(bubblewrap, the unprivileged sandbox Flatpak uses; a Debian/Ubuntu/Fedora package):

- the whole file system is mounted read-only, so a write outside the server's private folder
  (its state copy) fails inside the server with "Read-only file system";
- that private folder is the only writable place besides an empty scratch folder of its own,
  which ``HOME`` and ``TMPDIR`` point to (for tools that keep caches or temporary files);
  ``/tmp`` itself stays read-only and visible (the project or its virtual environment may live
  there);
- new user, pid, IPC, UTS and cgroup namespaces; no network unless the spec allows it (an
  HTTP server keeps the host's network, since we reach it on a loopback port);
- the server dies with its parent (``--die-with-parent``).

We use bubblewrap rather than writing namespace code ourselves: it is small, audited and
packaged everywhere, and it needs no root.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Sequence

from gym_mcp.errors import ConfigError

__all__ = ["SANDBOXES", "bwrap_command", "check_bwrap"]

SANDBOXES = ("none", "bwrap")

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; "
    "Arch: pacman -S bubblewrap)"
)


@functools.cache
def _probe() -> str:
    """Why bwrap cannot run here ("" when it can): missing, or namespaces not allowed."""
    path = shutil.which("bwrap")
    if path is None:
        return f"sandbox 'bwrap' needs the bwrap command, which is not installed: {INSTALL_HINT}"
    try:
        out = subprocess.run(
            [path, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sandbox 'bwrap' cannot run: {exc}"
    if out.returncode != 0:
        reason = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit status {out.returncode}"
        return f"sandbox 'bwrap' cannot run here ({reason}); it needs unprivileged user namespaces"
    return ""


def check_bwrap() -> None:
    """Make sure bubblewrap is installed and works here.

    Raises:
        ConfigError: It is missing (with the install hint) or cannot create namespaces.
    """
    problem = _probe()
    if problem:
        raise ConfigError(problem)


def bwrap_available() -> bool:
    """True when `check_bwrap` would pass."""
    return not _probe()


def bwrap_command(
    command: Sequence[str],
    *,
    writable: Sequence[str],
    scratch: str,
    network: bool,
    cwd: str | None = None,
) -> list[str]:
    """The command line that runs ``command`` inside the sandbox.

    Args:
        command: The server's own command line.
        writable: Folders the server may write to (its private state copy); all else is read-only.
        scratch: An empty folder of the server's own for ``HOME`` and ``TMPDIR`` (writable).
        network: Keep the host's network (needed for an HTTP server, or when the spec allows it).
        cwd: Working directory inside the sandbox (the host path; it is visible at the same path).

    Returns:
        The ``bwrap ... -- command`` argument list.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    args = [
        bwrap,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", scratch, scratch,
        "--setenv", "HOME", scratch,
        "--setenv", "TMPDIR", scratch,
        "--unshare-all",
        "--die-with-parent",
    ]  # fmt: skip
    if network:
        args.append("--share-net")
    for path in writable:
        args += ["--bind", path, path]
    if cwd:
        args += ["--chdir", cwd]
    return [*args, "--", *command]


def sandbox_name(value: object) -> str:
    """Check a ``sandbox`` setting: ``"none"`` (or None) or ``"bwrap"``.

    Raises:
        ConfigError: Any other value.
    """
    if value is None:
        return "none"
    if not isinstance(value, str) or value not in SANDBOXES:
        raise ConfigError(f"sandbox must be one of {', '.join(map(repr, SANDBOXES))}, got {value!r}")
    return value
