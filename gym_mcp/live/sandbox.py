"""A bubblewrap sandbox for MCP servers we did not write.

Two modes. ``ExternalSource(..., sandbox="bwrap")`` (the sandbox's default, for compatibility)
confines *writes*; ``sandbox="bwrap-strict"`` confines *reads* as well. Both run the server's
command inside `bwrap` (bubblewrap, the unprivileged sandbox Flatpak uses; a
Debian/Ubuntu/Fedora package).

``"bwrap"`` (writes confined, reads not):

- the whole file system is mounted read-only, so a write outside the server's private folder
  (its state copy) fails inside the server with "Read-only file system";
- that private folder is the only writable place besides an empty scratch folder of its own,
  which ``HOME`` and ``TMPDIR`` point to (for tools that keep caches or temporary files);
  ``/tmp`` itself stays read-only and visible (the project or its virtual environment may live
  there);
- new user, pid, IPC, UTS and cgroup namespaces; no network unless the spec allows it (an
  HTTP server keeps the host's network, since we reach it on a loopback port);
- the server dies with its parent (``--die-with-parent``).

``"bwrap-strict"`` (reads confined too): the server starts from an empty root and sees only

- read-only: the system's runtime folders (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``
  with its secrets masked: ``/etc/shadow``, ``/etc/sudoers``, ``/etc/ssh``, ``/etc/ssl/private``,
  ...); the install its command runs from, resolved from the command (the executable's prefix
  as given and as its symlinks resolve, e.g. a virtual environment and the Python it was made
  from, or the ``node_modules`` folder an npm server's ``.bin`` link lives in; the interpreter of
  a ``#!`` line, ``#!/usr/bin/env node`` included); absolute paths that exist among its
  arguments and in ``PYTHONPATH``/``NODE_PATH``; its working directory;
- writable: its state copy and its scratch folder (``HOME``, ``TMPDIR``);
- a fresh ``/proc`` of its own pid namespace (its pid 1 is bwrap's, not the host's), a minimal
  ``/dev``, an empty ``/tmp`` (a tmpfs);
- the host's environment variables, except a few harmless ones (``PATH``, ``LANG``, ``LC_*``,
  ``TZ``, ``TERM``) and those the spec sets, are removed (API keys live there);

so a 0600 file of the user's, another environment's state copy or the project's own files are
not there at all. A server that reads other files (a config in the user's home, a module
outside its install) fails to start or to find them: name them in its arguments or
``PYTHONPATH``, or use ``"bwrap"``.

We use bubblewrap rather than writing namespace code ourselves: it is small, audited and
packaged everywhere, and it needs no root.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from gym_mcp.errors import ConfigError

__all__ = ["SANDBOXES", "bwrap_command", "check_bwrap", "runtime_paths"]

SANDBOXES = ("none", "bwrap", "bwrap-strict")

# Read-only in "bwrap-strict": where a system keeps its interpreters, libraries and settings.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Masked in /etc (an empty file or folder in their place): secrets a root-mapped sandbox could read.
ETC_SECRETS = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/security/opasswd",
)
# Host environment variables a strict sandbox keeps (everything else, API keys included, goes).
KEEP_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")

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


def _install_root(path: Path) -> Path | None:
    """The folder an executable at ``path`` is installed in, to bind read-only (None: a system one).

    The outermost ``node_modules`` above it (an npm package needs its siblings); else the prefix
    of a ``bin``/``sbin`` folder (a virtual environment, a pyenv Python, an nvm node); else its
    own folder.
    """
    parts = path.parts
    if "node_modules" in parts:
        root = Path(*parts[: parts.index("node_modules") + 1])
    elif path.parent.name in ("bin", "sbin") and path.parent.parent != Path(path.anchor):
        root = path.parent.parent
    else:
        root = path.parent
    return None if _under_system(root) else root


def _under_system(path: Path) -> bool:
    """True when ``path`` is inside a folder every strict sandbox binds anyway."""
    return any(path == Path(d) or Path(d) in path.parents for d in SYSTEM_DIRS) or path == Path(path.anchor)


def _shebang(path: Path, search: str | None) -> Path | None:
    """The interpreter a ``#!`` script at ``path`` names (through ``/usr/bin/env``), if any."""
    try:
        with path.open("rb") as file:
            line = file.readline(256)
    except OSError:
        return None
    if not line.startswith(b"#!"):
        return None
    words = line[2:].decode(errors="replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        found = shutil.which(names[0], path=search) if names else None
        return Path(found) if found else None
    return Path(words[0])


def runtime_paths(command: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> list[str]:
    """What a server started by ``command`` needs to read, beyond the system folders.

    The install of its executable (as given and with symlinks resolved) and of a ``#!``
    interpreter; absolute paths that exist among its arguments and in ``PYTHONPATH`` /
    ``NODE_PATH``; its working directory. Never ``/tmp``, the home folder or a folder above it
    (a working directory there is made as an empty folder instead).

    Args:
        command: The server's command line (placeholders already filled in).
        env: The environment it starts with (the host's plus the spec's).
        cwd: Its working directory.
    """
    search = env.get("PATH")
    found = shutil.which(command[0], path=search) if command else None
    roots: list[Path] = []
    if found:
        exe = Path(os.path.abspath(found))
        for candidate in (exe, Path(os.path.realpath(exe))):
            roots.append(candidate)
            interpreter = _shebang(candidate, search)
            if interpreter is not None:
                roots += [interpreter, Path(os.path.realpath(interpreter))]
    out: list[Path] = [r for r in map(_install_root, roots) if r is not None]
    extra = [a for a in command[1:] if os.path.isabs(a)]
    for name in ("PYTHONPATH", "NODE_PATH"):
        extra += [p for p in env.get(name, "").split(os.pathsep) if os.path.isabs(p)]
    if cwd:
        extra.append(cwd)
    out += [Path(os.path.realpath(p)) for p in extra if os.path.exists(p)]
    unique: list[str] = []
    for path in out:
        if not _under_system(path) and not _too_broad(path) and str(path) not in unique:
            unique.append(str(path))
    return unique


def _too_broad(path: Path) -> bool:
    """True for ``/tmp``, the home folder or one above it: binding it would undo the confinement."""
    home = Path(os.path.realpath(Path.home()))
    return path in (Path("/tmp"), Path(os.path.realpath("/tmp")), home) or path in home.parents


def _strict_mounts(
    read_only: Sequence[str], network: bool, keep_env: Sequence[str], cwd: str | None, bound: Sequence[str]
) -> list[str]:
    """The ``bwrap`` arguments of ``"bwrap-strict"``: an empty root with only what is named."""
    args: list[str] = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    for secret in ETC_SECRETS:
        if os.path.isdir(secret) and not os.path.islink(secret):
            args += ["--tmpfs", secret, "--remount-ro", secret]
        elif os.path.lexists(secret):
            args += ["--ro-bind", "/dev/null", secret]
    if network:  # /etc/resolv.conf often points here
        args += ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
    args += ["--tmpfs", "/tmp"]  # before the binds below: the state copy usually lives in /tmp
    for path in read_only:
        args += ["--ro-bind", path, path]
    if cwd and not any(Path(cwd) == Path(p) or Path(p) in Path(cwd).parents for p in bound):
        args += ["--dir", cwd]  # an empty folder to start in, where its contents are not to be read
    keep = set(KEEP_ENV) | set(keep_env)
    for name in sorted(os.environ):
        if name not in keep and not name.startswith("LC_"):
            args += ["--unsetenv", name]
    return [*args, "--new-session"]


def bwrap_command(
    command: Sequence[str],
    *,
    writable: Sequence[str],
    scratch: str,
    network: bool,
    cwd: str | None = None,
    strict: bool = False,
    read_only: Sequence[str] = (),
    keep_env: Sequence[str] = (),
) -> list[str]:
    """The command line that runs ``command`` inside the sandbox.

    Args:
        command: The server's own command line.
        writable: Folders the server may write to (its private state copy); all else is read-only.
        scratch: An empty folder of the server's own for ``HOME`` and ``TMPDIR`` (writable).
        network: Keep the host's network (needed for an HTTP server, or when the spec allows it).
        cwd: Working directory inside the sandbox (the host path; it is visible at the same path).
        strict: Confine reads too (``"bwrap-strict"``): the server sees the system folders,
            ``read_only`` and its writable folders, nothing else of the host's.
        read_only: With ``strict``, what else it may read (see `runtime_paths`).
        keep_env: With ``strict``, the host environment variables to keep besides `KEEP_ENV`
            (the spec's own).

    Returns:
        The ``bwrap ... -- command`` argument list.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    bound = [*read_only, *writable, scratch]
    root = _strict_mounts(read_only, network, keep_env, cwd, bound) if strict else ["--ro-bind", "/", "/"]
    args = [
        bwrap,
        *root,
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
    """Check a ``sandbox`` setting: ``"none"`` (or None), ``"bwrap"`` or ``"bwrap-strict"``.

    Raises:
        ConfigError: Any other value.
    """
    if value is None:
        return "none"
    if not isinstance(value, str) or value not in SANDBOXES:
        raise ConfigError(f"sandbox must be one of {', '.join(map(repr, SANDBOXES))}, got {value!r}")
    return value
