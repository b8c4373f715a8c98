"""The filesystem server's tools: read, search, edit and organize files inside the workspace.

Each tool is a function whose first parameter is the `Workspace` of the call (not a tool
argument); its docstring is what the model reads. Every path argument goes through
`Workspace.resolve` (see `gym_mcp.servers.filesystem.workspace` for the confinement rules).
"""

from __future__ import annotations

import csv
import difflib
import fnmatch
import hashlib
import io
import json
import os
import re
import shutil
import stat
import zipfile
from collections import Counter, defaultdict
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from gym_mcp.servers.filesystem.workspace import TRASH, Workspace, shown
from gym_mcp.servers.kit import ToolInfo, ToolRegistry

__all__ = ["TOOLS"]

registry = ToolRegistry("filesystem")
"""The filesystem tools as they are declared; `TOOLS` is what it holds once they all are."""

tool = registry.tool
"""Declares a tool: its first parameter receives the `Workspace`. ``samples`` are literal values
for synthesis (new paths, contents, modes); ``pools`` name the kind of existing path a parameter
takes (see `gym_mcp.servers.filesystem.entities`): ``{"path": "text_file"}``."""

_MAX_RESULTS = 500
_ZIP_DATE = (2026, 1, 15, 0, 0, 0)


def _kind(st: os.stat_result) -> str:
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if stat.S_ISLNK(st.st_mode):
        return "symlink"
    if stat.S_ISREG(st.st_mode):
        return "file"
    return "other"


def _mode(st: os.stat_result) -> str:
    return oct(stat.S_IMODE(st.st_mode))


def _check_limit(value: int, name: str, hi: int = _MAX_RESULTS) -> None:
    if not 1 <= value <= hi:
        raise ToolError(f"{name} must be between 1 and {hi}, got {value}")


def _lines(ws: Workspace, path: str) -> tuple[str, list[str]]:
    real = ws.file(path)
    return real, ws.read_text(real).splitlines(keepends=True)


def _text_files(ws: Workspace, real: str) -> list[tuple[str, str]]:
    """(workspace path, text) of the UTF-8 text files below a folder (or of one file)."""
    entries = [(real, os.lstat(real))] if os.path.isfile(real) else list(ws.walk(real))
    out = []
    for child, st in entries:
        if not stat.S_ISREG(st.st_mode):
            continue
        data = ws.read_bytes(child)
        if b"\x00" in data[:8192]:
            continue
        try:
            out.append((ws.rel(child), data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return out


def _ensure_line(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


# -- browsing -------------------------------------------------------------------------------


@tool(write=False, intent="List what is in the workspace[ folder {path}]", pools={"path": "directory"})
def list_directory(ws: Workspace, path: str = "/") -> dict[str, Any]:
    """List the files and folders directly inside a folder, sorted by name.

    Use this to explore the workspace one level at a time (use tree for several levels).
    Returns {path, entries: [{name, type, size}]} where type is "file", "folder" or "symlink"
    and size is in bytes (0 for folders).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to list, relative to the workspace root, e.g. "docs" or "/" for the root.
    """
    real = ws.folder(path)
    entries = []
    for name in sorted(os.listdir(real)):
        if real == ws.root and name == TRASH:
            continue
        st = os.lstat(os.path.join(real, name))
        entries.append({"name": name, "type": _kind(st), "size": st.st_size if stat.S_ISREG(st.st_mode) else 0})
    return {"path": ws.rel(real), "entries": entries[:_MAX_RESULTS], "truncated": len(entries) > _MAX_RESULTS}


@tool(
    write=False,
    intent="Show the folder tree[ under {path}][ down to {max_depth} levels]",
    samples={"max_depth": (1, 2)},
    pools={"path": "directory"},
)
def tree(ws: Workspace, path: str = "/", max_depth: int = 3) -> dict[str, Any]:
    """Show the folder structure under a folder as an indented outline (folders end with "/").

    Use it to get an overview of the workspace; for a single folder use list_directory.
    At most 500 lines are returned.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to start from, e.g. "src" or "/" for the whole workspace.
        max_depth: How many levels to show, 1 to 10, e.g. 2.
    """
    _check_limit(max_depth, "max_depth", 10)
    real = ws.folder(path)
    base = real.count(os.sep) + (0 if real.endswith(os.sep) else 1)
    lines = []
    for child, st in ws.walk(real):
        depth = child.count(os.sep) - base
        if depth >= max_depth:
            continue
        suffix = "/" if stat.S_ISDIR(st.st_mode) else (" -> " + os.readlink(child) if stat.S_ISLNK(st.st_mode) else "")
        lines.append("  " * depth + os.path.basename(child) + suffix)
    return {"path": ws.rel(real), "tree": "\n".join(lines[:_MAX_RESULTS]), "truncated": len(lines) > _MAX_RESULTS}


@tool(write=False, name="stat", intent="Show the details of {path}", pools={"path": "file"})
def stat_path(ws: Workspace, path: str) -> dict[str, Any]:
    """Show the details of a file, folder or symbolic link: type, size, permission mode.

    A symbolic link is described itself (with its target), not what it points to.
    Returns {path, type, size, mode} plus entries (for a folder) or target (for a link).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file or folder, e.g. "data/config/prod.json".
    """
    real = ws.resolve(path, follow=False)
    st = ws.lstat(real, path)
    out: dict[str, Any] = {"path": ws.rel(real), "type": _kind(st), "size": st.st_size, "mode": _mode(st)}
    if stat.S_ISDIR(st.st_mode):
        out["size"] = 0
        out["entries"] = len([n for n in os.listdir(real) if not (real == ws.root and n == TRASH)])
    elif stat.S_ISLNK(st.st_mode):
        out["size"] = 0
        out["mode"] = None
        out["target"] = os.readlink(real)
    return out


@tool(write=False, intent="Check whether {path} exists", pools={"path": "file"})
def exists(ws: Workspace, path: str) -> dict[str, Any]:
    """Check whether a path exists in the workspace, and what it is.

    Returns {path, exists, type} with type "file", "folder", "symlink" or null.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The path to check, e.g. "notes/todo.txt".
    """
    real = ws.resolve(path, follow=False)
    try:
        st = os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        return {"path": "/".join(ws.parts(path)) or "/", "exists": False, "type": None}
    return {"path": ws.rel(real), "exists": True, "type": _kind(st)}


# -- reading ---------------------------------------------------------------------------------


@tool(write=False, intent="Show me the contents of {path}", pools={"path": "text_file"})
def read_file(ws: Workspace, path: str, max_chars: int = 20000) -> dict[str, Any]:
    """Read a whole text file.

    For long files prefer read_lines, head or tail. Binary files are refused (use file_hash or
    list_archive). Returns {path, content, size, truncated}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file to read, e.g. "README.md".
        max_chars: Most characters to return, 1 to 200000, e.g. 5000.
    """
    _check_limit(max_chars, "max_chars", 200_000)
    real = ws.file(path)
    text = ws.read_text(real)
    return {"path": ws.rel(real), "content": text[:max_chars], "size": len(text), "truncated": len(text) > max_chars}


@tool(
    write=False,
    intent="Show lines {start} to {end} of {path}",
    samples={"start": (1, 2, 3), "end": (4, 5, 8)},
    pools={"path": "text_file"},
)
def read_lines(ws: Workspace, path: str, start: int, end: int) -> dict[str, Any]:
    """Read a range of lines of a text file (line numbers start at 1, the end is included).

    Returns {path, start, end, total_lines, lines: [{number, text}]}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file to read, e.g. "src/app/main.py".
        start: First line to return, e.g. 10.
        end: Last line to return (inclusive), e.g. 25; past the end of the file is fine.
    """
    if start < 1 or end < start:
        raise ToolError(f"need 1 <= start <= end, got start={start} end={end}")
    real, lines = _lines(ws, path)
    picked = lines[start - 1 : end]
    rows = [{"number": start + i, "text": line.rstrip("\n")} for i, line in enumerate(picked)]
    return {
        "path": ws.rel(real),
        "start": start,
        "end": start + len(picked) - 1,
        "total_lines": len(lines),
        "lines": rows,
    }


@tool(
    write=False,
    intent="Show the first[ {lines}] lines of {path}",
    samples={"lines": (3, 5)},
    pools={"path": "text_file"},
)
def head(ws: Workspace, path: str, lines: int = 10) -> dict[str, Any]:
    """Show the first lines of a text file.

    Returns {path, total_lines, content}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "logs/app-1.log".
        lines: How many lines, 1 to 500, e.g. 5.
    """
    _check_limit(lines, "lines")
    real, all_lines = _lines(ws, path)
    return {"path": ws.rel(real), "total_lines": len(all_lines), "content": "".join(all_lines[:lines])}


@tool(
    write=False,
    intent="Show the last[ {lines}] lines of {path}",
    samples={"lines": (2, 4)},
    pools={"path": "text_file"},
)
def tail(ws: Workspace, path: str, lines: int = 10) -> dict[str, Any]:
    """Show the last lines of a text file (e.g. the newest entries of a log).

    Returns {path, total_lines, content}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "logs/app-2.log".
        lines: How many lines, 1 to 500, e.g. 5.
    """
    _check_limit(lines, "lines")
    real, all_lines = _lines(ws, path)
    return {"path": ws.rel(real), "total_lines": len(all_lines), "content": "".join(all_lines[-lines:])}


@tool(
    write=False,
    intent="Preview the first[ {rows}] rows of the CSV file {path}",
    samples={"rows": (2, 3)},
    pools={"path": "csv_file"},
)
def csv_preview(ws: Workspace, path: str, rows: int = 5) -> dict[str, Any]:
    """Show the header and first rows of a CSV file, parsed into columns.

    Returns {path, columns, rows: [[...]], total_rows} (total_rows excludes the header).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The CSV file, e.g. "data/reference/cities.csv".
        rows: How many data rows to show, 1 to 500, e.g. 3.
    """
    _check_limit(rows, "rows")
    real = ws.file(path)
    parsed = list(csv.reader(io.StringIO(ws.read_text(real))))
    if not parsed:
        raise ToolError(f"{shown(ws.rel(real))} is empty; it has no header row")
    return {"path": ws.rel(real), "columns": parsed[0], "rows": parsed[1 : rows + 1], "total_rows": len(parsed) - 1}


@tool(
    write=False,
    intent="Get[ the value at '{key_path}' in] the JSON file {path}",
    samples={"key_path": ("topic", "owner.name", "totals.count", "items.0.name")},
    pools={"path": "summary_file"},
)
def json_get(ws: Workspace, path: str, key_path: str = "") -> dict[str, Any]:
    """Read one value out of a JSON file by its key path.

    Keys are separated by dots and list positions are numbers starting at 0, e.g.
    "database.port" or "items.0.name"; an empty key path returns the whole document.
    Returns {path, key_path, value}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The JSON file, e.g. "data/config/prod.json".
        key_path: Dot-separated keys, e.g. "totals.count".
    """
    real = ws.file(path)
    try:
        value: Any = json.loads(ws.read_text(real))
    except json.JSONDecodeError as exc:
        raise ToolError(f"{shown(ws.rel(real))} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    walked: list[str] = []
    for key in [k for k in key_path.split(".") if k] if key_path else []:
        if isinstance(value, dict):
            if key not in value:
                raise ToolError(
                    f"key {key!r} not found at {'.'.join(walked) or 'the top level'}; keys there: {sorted(value)[:30]}"
                )
            value = value[key]
        elif isinstance(value, list):
            if not key.isdigit() or int(key) >= len(value):
                raise ToolError(
                    f"{'.'.join(walked) or 'the top level'} is a list of {len(value)}; use 0 to {len(value) - 1}"
                )
            value = value[int(key)]
        else:
            raise ToolError(f"{'.'.join(walked)} is a {type(value).__name__}, it has no key {key!r}")
        walked.append(key)
    return {"path": ws.rel(real), "key_path": key_path, "value": value}


@tool(write=False, intent="Show where the symbolic link {path} points", pools={"path": "link"})
def read_link(ws: Workspace, path: str) -> dict[str, Any]:
    """Show the target of a symbolic link (without following it).

    Returns {path, target, target_path} where target is the link's text and target_path the
    workspace path it leads to (null when it leads outside the workspace).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The link, e.g. "docs/latest.md".
    """
    real = ws.resolve(path, follow=False)
    st = ws.lstat(real, path)
    if not stat.S_ISLNK(st.st_mode):
        raise ToolError(f"{shown(ws.rel(real))} is a {_kind(st)}, not a symbolic link")
    dest = os.path.realpath(real)
    return {"path": ws.rel(real), "target": os.readlink(real), "target_path": ws.rel(dest) if ws.inside(dest) else None}


# -- searching -------------------------------------------------------------------------------


@tool(
    write=False,
    intent="Find files matching '{pattern}'[ under {path}]",
    samples={"pattern": ("*.md", "*.csv", "test_*.py", "*.json", "*.zip", "*.sh")},
    pools={"path": "directory"},
)
def search_files(ws: Workspace, pattern: str, path: str = "/", max_results: int = 100) -> dict[str, Any]:
    """Find files and folders whose name matches a glob pattern, searching all subfolders.

    The pattern matches the name (e.g. "*.csv", "test_*.py", "*report*"); a pattern with "/"
    matches the whole path below the search folder instead (e.g. "src/*/models/*.py").
    Returns {matches: [paths], truncated}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        pattern: Glob pattern, e.g. "*.json".
        path: Folder to search in, e.g. "data" or "/" for everywhere.
        max_results: Most paths to return, 1 to 500.
    """
    _check_limit(max_results, "max_results")
    real = ws.folder(path)
    if not pattern:
        raise ToolError("pattern is empty; use a glob such as '*.md'")
    hits = []
    for child, _st in ws.walk(real):
        rel = os.path.relpath(child, real).replace(os.sep, "/")
        if fnmatch.fnmatch(rel if "/" in pattern else os.path.basename(child), pattern):
            hits.append(ws.rel(child))
    return {"matches": hits[:max_results], "truncated": len(hits) > max_results}


@tool(
    write=False,
    intent="Search for '{pattern}' in the files[ under {path}]",
    samples={"pattern": ("TODO", "token", "ERROR", "import json", "cache", "Action:")},
    pools={"path": "directory"},
)
def grep(
    ws: Workspace,
    pattern: str,
    path: str = "/",
    regex: bool = False,
    ignore_case: bool = False,
    max_results: int = 50,
) -> dict[str, Any]:
    r"""Search the text of files for a string or regular expression, line by line.

    Binary files and symbolic links are skipped. Returns {matches: [{path, line, text}], truncated}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        pattern: Text to look for, e.g. "TODO", or a Python regular expression when regex is true, e.g. "def \w+_user".
        path: File or folder to search, e.g. "src" or "/" for everything.
        regex: Treat pattern as a regular expression.
        ignore_case: Match regardless of upper/lower case.
        max_results: Most matching lines to return, 1 to 500.
    """
    _check_limit(max_results, "max_results")
    if not pattern:
        raise ToolError("pattern is empty; give the text to look for, e.g. 'TODO'")
    try:
        rx = re.compile(pattern if regex else re.escape(pattern), re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"invalid regular expression: {exc}; pass regex=false to search for plain text") from None
    real = ws.resolve(path)
    ws.lstat(real, path)
    matches = []
    for rel, text in _text_files(ws, real):
        for number, line in enumerate(text.splitlines(), 1):
            if rx.search(line):
                matches.append({"path": rel, "line": number, "text": line[:300]})
    return {"matches": matches[:max_results], "truncated": len(matches) > max_results}


@tool(
    write=False,
    intent="Find files of at least {min_bytes} bytes[ and at most {max_bytes} bytes][ under {path}]",
    samples={"min_bytes": (500, 1000, 2000), "max_bytes": (3000, 8000)},
    pools={"path": "directory"},
)
def find_by_size(
    ws: Workspace, min_bytes: int, max_bytes: int | None = None, path: str = "/", max_results: int = 100
) -> dict[str, Any]:
    """Find files whose size is within a range, largest first.

    Returns {files: [{path, size}], truncated}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        min_bytes: Smallest size to include, in bytes, e.g. 1000 (0 for empty files too).
        max_bytes: Largest size to include, in bytes, e.g. 5000; omit for no upper bound.
        path: Folder to search, e.g. "data".
        max_results: Most files to return, 1 to 500.
    """
    _check_limit(max_results, "max_results")
    if min_bytes < 0 or (max_bytes is not None and max_bytes < min_bytes):
        raise ToolError(f"need 0 <= min_bytes <= max_bytes, got {min_bytes} and {max_bytes}")
    real = ws.folder(path)
    found: list[dict[str, Any]] = [
        {"path": ws.rel(c), "size": st.st_size}
        for c, st in ws.walk(real)
        if stat.S_ISREG(st.st_mode) and st.st_size >= min_bytes and (max_bytes is None or st.st_size <= max_bytes)
    ]
    found.sort(key=lambda f: (-f["size"], f["path"]))
    return {"files": found[:max_results], "truncated": len(found) > max_results}


@tool(
    write=False,
    intent="Show the[ {limit}] largest files[ under {path}]",
    samples={"limit": (3, 5)},
    pools={"path": "directory"},
)
def largest_files(ws: Workspace, path: str = "/", limit: int = 10) -> list[dict[str, Any]]:
    """List the largest files under a folder, largest first (to see what takes space).

    Returns [{path, size}].

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to look in, e.g. "/" or "archives".
        limit: How many files, 1 to 500, e.g. 5.
    """
    _check_limit(limit, "limit")
    real = ws.folder(path)
    found: list[dict[str, Any]] = [
        {"path": ws.rel(c), "size": st.st_size} for c, st in ws.walk(real) if stat.S_ISREG(st.st_mode)
    ]
    found.sort(key=lambda f: (-f["size"], f["path"]))
    return found[:limit]


@tool(write=False, intent="Find empty files and folders[ under {path}]", pools={"path": "directory"})
def find_empty(ws: Workspace, path: str = "/") -> dict[str, Any]:
    """Find empty files (0 bytes) and empty folders.

    Returns {files: [paths], folders: [paths]}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to search, e.g. "/" or "tmp".
    """
    real = ws.folder(path)
    files, folders = [], []
    for child, st in ws.walk(real):
        if stat.S_ISREG(st.st_mode) and st.st_size == 0:
            files.append(ws.rel(child))
        elif stat.S_ISDIR(st.st_mode) and not os.listdir(child):
            folders.append(ws.rel(child))
    return {"files": files[:_MAX_RESULTS], "folders": folders[:_MAX_RESULTS]}


@tool(write=False, intent="Find duplicate files[ under {path}]", pools={"path": "directory"})
def find_duplicates(ws: Workspace, path: str = "/") -> dict[str, Any]:
    """Find groups of files with identical content (same SHA-256), e.g. to clean up copies.

    Empty files are ignored. Returns {groups: [{sha256, size, paths}]}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to search, e.g. "/" or "data".
    """
    real = ws.folder(path)
    groups: dict[str, list[str]] = defaultdict(list)
    sizes: dict[str, int] = {}
    for child, st in ws.walk(real):
        if stat.S_ISREG(st.st_mode) and st.st_size:
            digest = hashlib.sha256(ws.read_bytes(child)).hexdigest()
            groups[digest].append(ws.rel(child))
            sizes[digest] = st.st_size
    out: list[dict[str, Any]] = [{"sha256": d, "size": sizes[d], "paths": p} for d, p in groups.items() if len(p) > 1]
    out.sort(key=lambda g: g["paths"][0])
    return {"groups": out}


@tool(write=False, intent="Count the files by extension[ under {path}]", pools={"path": "directory"})
def count_files_by_extension(ws: Workspace, path: str = "/") -> dict[str, int]:
    """Count the files under a folder per extension (".py", ".md", ...; "" for none), most first.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Folder to count in, e.g. "src".
    """
    real = ws.folder(path)
    counts = Counter(
        os.path.splitext(os.path.basename(c))[1].lower() for c, st in ws.walk(real) if stat.S_ISREG(st.st_mode)
    )
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# -- measuring -------------------------------------------------------------------------------


@tool(
    write=False,
    intent="Compute the[ {algorithm}] hash of {path}",
    samples={"algorithm": ("sha256", "md5", "sha1")},
    pools={"path": "file"},
)
def file_hash(ws: Workspace, path: str, algorithm: str = "sha256") -> dict[str, Any]:
    """Compute a checksum of a file's bytes, e.g. to check two files are identical.

    Returns {path, algorithm, hash, size}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "archives/backup-2025-01.zip".
        algorithm: "sha256" (default), "sha1" or "md5".
    """
    if algorithm not in ("sha256", "sha1", "md5"):
        raise ToolError(f"algorithm must be 'sha256', 'sha1' or 'md5', got {algorithm!r}")
    real = ws.file(path)
    data = ws.read_bytes(real)
    return {
        "path": ws.rel(real),
        "algorithm": algorithm,
        "hash": hashlib.new(algorithm, data).hexdigest(),
        "size": len(data),
    }


@tool(write=False, intent="Count the words in {path}", pools={"path": "text_file"})
def word_count(ws: Workspace, path: str) -> dict[str, Any]:
    """Count the lines, words and characters of a text file (like wc).

    Returns {path, lines, words, characters}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The text file, e.g. "notes/ideas.md".
    """
    real = ws.file(path)
    text = ws.read_text(real)
    return {"path": ws.rel(real), "lines": len(text.splitlines()), "words": len(text.split()), "characters": len(text)}


@tool(write=False, intent="Count the lines in {path}", pools={"path": "text_file"})
def line_count(ws: Workspace, path: str) -> dict[str, Any]:
    """Count the lines of a text file, or of all text files under a folder.

    Returns {path, lines, files} (files: how many text files were counted).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: A text file or a folder, e.g. "src".
    """
    real = ws.resolve(path)
    ws.lstat(real, path)
    texts = _text_files(ws, real)
    return {"path": ws.rel(real), "lines": sum(len(t.splitlines()) for _, t in texts), "files": len(texts)}


@tool(write=False, intent="Show the disk usage[ of {path}]", pools={"path": "directory"})
def disk_usage(ws: Workspace, path: str = "/") -> dict[str, Any]:
    """Show how much space a folder (or file) takes: total bytes, files and subfolders.

    Returns {path, bytes, files, folders}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The folder, e.g. "data" or "/" for the whole workspace (the trash is not counted).
    """
    real = ws.resolve(path)
    st = ws.lstat(real, path)
    if stat.S_ISREG(st.st_mode):
        return {"path": ws.rel(real), "bytes": st.st_size, "files": 1, "folders": 0}
    total = files = folders = 0
    for _child, cst in ws.walk(real):
        if stat.S_ISREG(cst.st_mode):
            total += cst.st_size
            files += 1
        elif stat.S_ISDIR(cst.st_mode):
            folders += 1
    return {"path": ws.rel(real), "bytes": total, "files": files, "folders": folders}


@tool(write=False, intent="How much of the storage quota is left")
def quota_info(ws: Workspace) -> dict[str, Any]:
    """Show the workspace's storage quota: how many bytes are used, free, and held by the trash.

    Files in the trash still count against the quota until empty_trash is called.
    Returns {quota_bytes, used_bytes, free_bytes, trash_bytes}.
    """
    used = ws.usage()
    trash = sum(
        os.lstat(os.path.join(d, f)).st_size
        for d, _dirs, fs in os.walk(ws.trash_dir)
        for f in fs
        if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f))
    )
    return {
        "quota_bytes": ws.quota_bytes,
        "used_bytes": used,
        "free_bytes": max(ws.quota_bytes - used, 0),
        "trash_bytes": trash,
    }


@tool(
    write=False,
    intent="Show the differences between {path_a} and {path_b}",
    pools={"path_a": "text_file", "path_b": "text_file"},
)
def diff_files(ws: Workspace, path_a: str, path_b: str, context: int = 3) -> dict[str, Any]:
    """Compare two text files line by line and show a unified diff ("-" lines from a, "+" from b).

    Returns {identical, diff}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path_a: The first (old) file, e.g. "notes/todo-old.txt".
        path_b: The second (new) file, e.g. "notes/todo.txt".
        context: Unchanged lines shown around each change, 0 to 20.
    """
    if not 0 <= context <= 20:
        raise ToolError(f"context must be between 0 and 20, got {context}")
    real_a, a = _lines(ws, path_a)
    real_b, b = _lines(ws, path_b)
    diff = "".join(difflib.unified_diff(a, b, ws.rel(real_a), ws.rel(real_b), n=context))
    return {"identical": a == b, "diff": diff[:50_000]}


@tool(
    write=False,
    intent="Compare the folders {path_a} and {path_b}",
    pools={"path_a": "directory", "path_b": "directory"},
)
def compare_directories(ws: Workspace, path_a: str, path_b: str) -> dict[str, Any]:
    """Compare two folders recursively: what is only in one, and which files differ in content.

    Returns {only_in_a, only_in_b, different, identical_files} with paths relative to each folder.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path_a: The first folder, e.g. "docs".
        path_b: The second folder, e.g. "docs-backup".
    """
    real_a, real_b = ws.folder(path_a, "path_a"), ws.folder(path_b, "path_b")

    def listing(real: str) -> dict[str, os.stat_result]:
        return {os.path.relpath(c, real).replace(os.sep, "/"): st for c, st in ws.walk(real)}

    a, b = listing(real_a), listing(real_b)
    different, same = [], 0
    for rel in sorted(set(a) & set(b)):
        sa, sb = a[rel], b[rel]
        if _kind(sa) != _kind(sb):
            different.append(rel)
        elif stat.S_ISREG(sa.st_mode):
            if ws.read_bytes(os.path.join(real_a, rel)) == ws.read_bytes(os.path.join(real_b, rel)):
                same += 1
            else:
                different.append(rel)
    return {
        "only_in_a": sorted(set(a) - set(b)),
        "only_in_b": sorted(set(b) - set(a)),
        "different": different,
        "identical_files": same,
    }


# -- writing ---------------------------------------------------------------------------------


@tool(
    write=True,
    intent="Write '{content}' to the file {path}[, overwriting it: {overwrite}]",
    samples={
        "path": (
            "notes/summary.md",
            "docs/faq.md",
            "notes/meetings/agenda.md",
            "data/incoming/orders.csv",
            "tmp/scratch.txt",
            "reports.md",
        ),
        "content": ("Draft agenda for Monday.", "All checks passed on 2026-01-15.", "Owner: Dana", "id,total\n1,20\n"),
    },
)
def write_file(ws: Workspace, path: str, content: str, overwrite: bool = False) -> dict[str, Any]:
    r"""Create a text file with the given content, or replace an existing file's content.

    The parent folder must exist (create_directory first). An existing file is replaced only
    when overwrite is true. Returns {path, size, created}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file to write, e.g. "notes/plan.md".
        content: The full text to write, e.g. "# Plan\n- ship v2\n".
        overwrite: Replace the file if it already exists.
    """
    real = ws.new(path, exist_ok=True)
    existed = os.path.lexists(real)
    if existed:
        if os.path.isdir(real):
            raise ToolError(f"{shown(ws.rel(real))} is a folder; choose a file name inside it")
        if not overwrite:
            raise ToolError(f"{shown(ws.rel(real))} already exists; pass overwrite=true to replace its content")
    data = content.encode("utf-8", "surrogatepass")
    ws.write_bytes(real, data)
    return {"path": ws.rel(real), "size": len(data), "created": not existed}


@tool(
    write=True,
    intent="Append '{content}' to {path}",
    samples={"content": ("Reviewed on 2026-01-15.", "TODO: update the examples.", "Owner: Dana")},
    pools={"path": "text_file"},
)
def append_file(ws: Workspace, path: str, content: str) -> dict[str, Any]:
    r"""Add text to the end of a file (the file is created when missing).

    Nothing is inserted between the old content and the new text: end lines with "\n".
    Returns {path, size}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "notes/todo.txt".
        content: Text to add, e.g. "- [ ] call Ana\n".
    """
    real = ws.new(path, exist_ok=True)
    if os.path.isdir(real):
        raise ToolError(f"{shown(ws.rel(real))} is a folder, not a file")
    ws.write_bytes(real, content.encode("utf-8", "surrogatepass"), append=True)
    return {"path": ws.rel(real), "size": os.lstat(real).st_size}


@tool(
    write=True,
    intent="Create the folder {path}",
    samples={"path": ("docs/tutorials", "data/archive", "notes/2026", "reports", "src/web/assets")},
)
def create_directory(ws: Workspace, path: str) -> dict[str, Any]:
    """Create a folder, with any missing parent folders (like mkdir -p).

    Returns {path, created} (created is false when the folder already existed).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The folder to create, e.g. "reports/2026/q1".
    """
    parts = ws.parts(path)
    if not parts:
        raise ToolError("path must name a folder inside the workspace, e.g. 'reports/2026'")
    created = False
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        real = ws.resolve(sub)
        if os.path.lexists(real):
            if not os.path.isdir(real):
                raise ToolError(f"{shown(ws.rel(real))} is a file; a folder cannot be created inside it")
            continue
        os.mkdir(real, 0o755)
        os.chmod(real, 0o755)
        created = True
    return {"path": "/".join(parts), "created": created}


@tool(
    write=True,
    intent="Create an empty file {path}",
    samples={"path": ("notes/.keep", "logs/app-6.log", "tmp/lock", "data/incoming/READY")},
)
def touch(ws: Workspace, path: str) -> dict[str, Any]:
    """Create an empty file if it does not exist yet (an existing file is left unchanged).

    Returns {path, created}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "tmp/.keep".
    """
    real = ws.new(path, exist_ok=True)
    if os.path.lexists(real):
        ws.lstat(real, path)
        return {"path": ws.rel(real), "created": False}
    ws.write_bytes(real, b"")
    return {"path": ws.rel(real), "created": True}


@tool(
    write=True,
    intent="In {path}, replace '{old}' with '{new}'",
    samples={"old": ("the", "queue", "token", "TODO", "cache"), "new": ("a", "stream", "key", "NOTE", "store")},
    pools={"path": "text_file"},
)
def replace_in_file(ws: Workspace, path: str, old: str, new: str, count: int = 0) -> dict[str, Any]:
    """Replace exact text in a file (case-sensitive, no regular expressions).

    Returns {path, replacements}. Fails when the text is not found.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file to edit, e.g. "data/config/dev.json".
        old: Exact text to find, e.g. "debug".
        new: Text to put in its place, e.g. "info".
        count: Replace only the first N occurrences; 0 replaces all.
    """
    if not old:
        raise ToolError("old is empty; give the exact text to replace")
    if count < 0:
        raise ToolError("count must be 0 (all) or a positive number")
    real = ws.file(path)
    text = ws.read_text(real)
    found = text.count(old)
    if not found:
        raise ToolError(
            f"{old[:60]!r} does not occur in {shown(ws.rel(real))}; use grep or read_file to check the exact text"
        )
    ws.write_bytes(real, text.replace(old, new, count or -1).encode("utf-8", "surrogatepass"))
    return {"path": ws.rel(real), "replacements": min(found, count) if count else found}


@tool(
    write=True,
    intent="Insert '{text}' before line {line} of {path}",
    samples={"line": (1, 2, 3), "text": ("Reviewed: yes", "# Updated 2026-01-15")},
    pools={"path": "text_file"},
)
def insert_lines(ws: Workspace, path: str, line: int, text: str) -> dict[str, Any]:
    r"""Insert text as new line(s) before a given line number (total_lines + 1 appends at the end).

    Returns {path, inserted, total_lines}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "notes/todo.txt".
        line: Line number the new text goes before, starting at 1, e.g. 1 for the top.
        text: The line(s) to insert, e.g. "- [ ] review PR"; several lines are separated by "\n".
    """
    real, lines = _lines(ws, path)
    if not 1 <= line <= len(lines) + 1:
        raise ToolError(f"line must be between 1 and {len(lines) + 1} (the file has {len(lines)} lines), got {line}")
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new = _ensure_line(text).splitlines(keepends=True) or ["\n"]
    lines[line - 1 : line - 1] = new
    ws.write_bytes(real, "".join(lines).encode("utf-8", "surrogatepass"))
    return {"path": ws.rel(real), "inserted": len(new), "total_lines": len(lines)}


@tool(
    write=True,
    intent="Delete lines {start} to {end} of {path}",
    samples={"start": (1, 2), "end": (2, 3, 4)},
    pools={"path": "text_file"},
)
def delete_lines(ws: Workspace, path: str, start: int, end: int) -> dict[str, Any]:
    """Delete a range of lines from a text file (line numbers start at 1, the end is included).

    Returns {path, deleted, total_lines}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file, e.g. "notes/todo.txt".
        start: First line to delete, e.g. 3.
        end: Last line to delete (inclusive), e.g. 3 to delete one line.
    """
    real, lines = _lines(ws, path)
    if not 1 <= start <= end <= len(lines):
        raise ToolError(f"need 1 <= start <= end <= {len(lines)} (the file has {len(lines)} lines), got {start}..{end}")
    del lines[start - 1 : end]
    ws.write_bytes(real, "".join(lines).encode("utf-8", "surrogatepass"))
    return {"path": ws.rel(real), "deleted": end - start + 1, "total_lines": len(lines)}


# -- organizing ------------------------------------------------------------------------------


def _tree_size(real: str) -> int:
    if os.path.islink(real):
        return 0
    if os.path.isfile(real):
        return os.lstat(real).st_size
    return sum(
        os.lstat(os.path.join(d, f)).st_size
        for d, _ds, fs in os.walk(real)
        for f in fs
        if not os.path.islink(os.path.join(d, f)) and os.path.isfile(os.path.join(d, f))
    )


def _destination(ws: Workspace, source_real: str, destination: str) -> str:
    """Where a move or copy lands: into ``destination`` when it is a folder, else at it."""
    dest = ws.resolve(destination, arg="destination")
    if os.path.isdir(dest) and not os.path.islink(dest):
        dest = os.path.join(dest, os.path.basename(source_real))
        ws.resolve(ws.rel(dest), arg="destination")
    elif not os.path.isdir(os.path.dirname(dest)):
        raise ToolError(
            f"the folder {shown(ws.rel(os.path.dirname(dest)))} of destination does not exist; "
            "create it with create_directory"
        )
    if os.path.lexists(dest):
        raise ToolError(f"destination {shown(ws.rel(dest))} already exists; delete it first or choose another name")
    if os.path.isdir(source_real) and (dest + os.sep).startswith(source_real + os.sep):
        raise ToolError("a folder cannot be moved or copied into itself")
    return dest


@tool(write=True, intent="Move {source} to {destination}", pools={"source": "file", "destination": "directory"})
def move(ws: Workspace, source: str, destination: str) -> dict[str, Any]:
    """Move a file or folder to another place in the workspace.

    When destination is an existing folder the source goes inside it (keeping its name);
    otherwise destination is the new path. Nothing is overwritten. Returns {source, destination}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        source: What to move, e.g. "notes/ideas.md".
        destination: Where to, e.g. "docs" (into that folder) or "docs/ideas-2026.md" (new path).
    """
    src = ws.resolve(source, arg="source", follow=False)
    ws.lstat(src, source, "source")
    if src == ws.root:
        raise ToolError("the workspace root cannot be moved")
    dest = _destination(ws, src, destination)
    os.rename(src, dest)
    return {"source": ws.rel(src), "destination": ws.rel(dest)}


@tool(
    write=True,
    intent="Rename {path} to {new_name}",
    samples={"new_name": ("old-notes.md", "draft.md", "archive-2025.txt", "v2.json", "backup.csv")},
    pools={"path": "file"},
)
def rename(ws: Workspace, path: str, new_name: str) -> dict[str, Any]:
    """Rename a file or folder, keeping it in the same folder.

    Returns {path, new_path}. To move it elsewhere use move.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: What to rename, e.g. "notes/ideas.md".
        new_name: The new name only (no "/"), e.g. "ideas-2026.md".
    """
    if not new_name or "/" in new_name or new_name in (".", ".."):
        raise ToolError(f"new_name must be a plain name without '/', e.g. 'report-final.md', got {shown(new_name)}")
    src = ws.resolve(path, follow=False)
    ws.lstat(src, path)
    if src == ws.root:
        raise ToolError("the workspace root cannot be renamed")
    target = ws.rel(os.path.dirname(src)).strip("/")
    dest = ws.new(f"{target}/{new_name}", "new_name")
    os.rename(src, dest)
    return {"path": ws.rel(src), "new_path": ws.rel(dest)}


@tool(write=True, intent="Copy {source} to {destination}", pools={"source": "file", "destination": "directory"})
def copy(ws: Workspace, source: str, destination: str) -> dict[str, Any]:
    """Copy a file or a whole folder (symbolic links are copied as links).

    When destination is an existing folder the copy goes inside it (keeping the name); otherwise
    destination is the new path. Nothing is overwritten; the copy counts against the quota.
    Returns {source, destination, bytes}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        source: What to copy, e.g. "data/config/prod.json".
        destination: Where to, e.g. "data/config/prod-backup.json" or "backups" (into that folder).
    """
    src = ws.resolve(source, arg="source")
    st = ws.lstat(src, source, "source")
    if src == ws.root:
        raise ToolError("the whole workspace cannot be copied into itself; copy a folder inside it")
    dest = _destination(ws, src, destination)
    size = _tree_size(src)
    ws.check_quota(size)
    if stat.S_ISDIR(st.st_mode):
        shutil.copytree(src, dest, symlinks=True)
    else:
        ws.write_bytes(dest, ws.read_bytes(src))
        os.chmod(dest, stat.S_IMODE(st.st_mode))
    return {"source": ws.rel(src), "destination": ws.rel(dest), "bytes": size}


@tool(
    write=True,
    intent="Set the permissions of {path} to {mode}",
    samples={"mode": ("600", "640", "755", "444")},
    pools={"path": "file"},
)
def chmod(ws: Workspace, path: str, mode: str) -> dict[str, Any]:
    """Change the permission bits of a file or folder (octal, like chmod).

    The owner must keep read access (modes 400 to 777), and a folder keeps the owner's full
    access (700 or more). A file without owner write ("444") is read-only for the write tools.
    Returns {path, mode}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file or folder, e.g. "scripts/build.sh".
        mode: Octal mode, e.g. "755", "644" or "0o600".
    """
    text = mode.strip().lower().removeprefix("0o")
    if not re.fullmatch(r"0?[0-7]{3}", text):
        raise ToolError(f"mode must be octal like '644' or '0o755', got {shown(mode)}")
    bits = int(text, 8)
    if not 0o400 <= bits <= 0o777 or not bits & 0o400:
        raise ToolError(f"mode {oct(bits)} would take read access from the owner; use 400 to 777, e.g. '644'")
    real = ws.resolve(path)
    st = ws.lstat(real, path)
    if real == ws.root:
        raise ToolError("the workspace root's permissions cannot be changed")
    if stat.S_ISDIR(st.st_mode) and bits & 0o700 != 0o700:
        raise ToolError(f"a folder needs the owner's full access (7xx, e.g. '755'), got {oct(bits)}")
    os.chmod(real, bits)
    return {"path": ws.rel(real), "mode": oct(bits)}


@tool(
    write=True,
    intent="Create a symbolic link {path} pointing to {target}",
    samples={"path": ("latest.md", "docs/current.md", "notes/link-to-readme", "shortcut")},
    pools={"target": "file"},
)
def create_symlink(ws: Workspace, path: str, target: str) -> dict[str, Any]:
    """Create a symbolic link (a shortcut) to an existing file or folder in the workspace.

    The link stores a relative target, so it keeps working if the workspace is moved.
    Returns {path, target, target_path}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: Where the link goes, e.g. "docs/latest.md".
        target: The existing file or folder it points to, e.g. "CHANGELOG.md".
    """
    dest = ws.resolve(target, arg="target")
    ws.lstat(dest, target, "target")
    link = ws.new(path)
    relative = os.path.relpath(dest, os.path.dirname(link))
    os.symlink(relative, link)
    return {"path": ws.rel(link), "target": relative, "target_path": ws.rel(dest)}


# -- trash -----------------------------------------------------------------------------------

_INDEX = "index.json"


def _trash_index(ws: Workspace) -> dict[str, dict[str, Any]]:
    index = ws.trash_dir / _INDEX
    if not index.is_file() or index.is_symlink():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(index.read_text())
    return data


def _save_index(ws: Workspace, data: dict[str, dict[str, Any]]) -> None:
    body = json.dumps(data, indent=1, sort_keys=True).encode()
    ws.write_bytes(str(ws.trash_dir / _INDEX), body)


def _to_trash(ws: Workspace, real: str, kind: str) -> dict[str, Any]:
    trash = ws.trash_dir
    if not trash.is_dir() or trash.is_symlink():
        if os.path.lexists(trash):
            os.unlink(trash)
        trash.mkdir(mode=0o755)
        os.chmod(trash, 0o755)
    data = _trash_index(ws)
    numbers = [int(k[1:]) for k in data if k[1:].isdigit()]
    trash_id = f"T{max(numbers, default=0) + 1}"
    size = _tree_size(real)
    os.rename(real, trash / trash_id)
    data[trash_id] = {"path": ws.rel(real), "type": kind, "size": size}
    _save_index(ws, data)
    return {"path": ws.rel(real), "trash_id": trash_id, "type": kind}


@tool(write=True, intent="Delete the file {path}", pools={"path": "file"})
def delete(ws: Workspace, path: str) -> dict[str, Any]:
    """Delete a file or symbolic link by moving it to the trash (restore_from_trash undoes it).

    For a folder use delete_directory. Returns {path, trash_id}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The file to delete, e.g. "notes/todo-old.txt".
    """
    real = ws.resolve(path, follow=False)
    st = ws.lstat(real, path)
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{shown(ws.rel(real))} is a folder; use delete_directory to delete a folder")
    return _to_trash(ws, real, _kind(st))


@tool(write=True, intent="Delete the folder {path} with everything in it", pools={"path": "directory"})
def delete_directory(ws: Workspace, path: str) -> dict[str, Any]:
    """Delete a folder and everything in it by moving it to the trash (restore_from_trash undoes it).

    Returns {path, trash_id, files} (files: how many files it held).

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The folder to delete, e.g. "tmp".
    """
    real = ws.resolve(path, follow=False)
    st = ws.lstat(real, path)
    if real == ws.root:
        raise ToolError("the workspace root cannot be deleted; delete the folders inside it one by one")
    if not stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{shown(ws.rel(real))} is not a folder; use delete for files and links")
    files = sum(len(fs) for _d, _ds, fs in os.walk(real))
    out = _to_trash(ws, real, "folder")
    return {**out, "files": files}


@tool(write=False, intent="Show what is in the trash")
def list_trash(ws: Workspace) -> list[dict[str, Any]]:
    """List the deleted files and folders waiting in the trash.

    Returns [{trash_id, original_path, type, size}], oldest first; use a trash_id with
    restore_from_trash.
    """
    data = _trash_index(ws)
    order = sorted(data, key=lambda k: int(k[1:]) if k[1:].isdigit() else 0)
    return [
        {"trash_id": k, "original_path": data[k]["path"], "type": data[k]["type"], "size": data[k]["size"]}
        for k in order
    ]


@tool(
    write=True,
    intent="Restore {trash_id} from the trash[ to {destination}]",
    samples={"destination": ("notes/restored.txt", "tmp/restored")},
)
def restore_from_trash(ws: Workspace, trash_id: str, destination: str | None = None) -> dict[str, Any]:
    """Put a deleted file or folder back where it was (or somewhere else).

    Returns {trash_id, path}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        trash_id: The id list_trash shows, e.g. "T1".
        destination: Where to restore it instead of its original path, e.g. "notes/restored.txt";
            needed when something else now sits at the original path.
    """
    data = _trash_index(ws)
    if trash_id not in data or not os.path.lexists(ws.trash_dir / trash_id) or "/" in trash_id:
        raise ToolError(f"no trash item {trash_id!r}; use list_trash to see the trash ids, e.g. 'T1'")
    target = destination if destination is not None else data[trash_id]["path"]
    dest = ws.new(target, "destination" if destination is not None else "original path")
    os.rename(ws.trash_dir / trash_id, dest)
    del data[trash_id]
    _save_index(ws, data)
    return {"trash_id": trash_id, "path": ws.rel(dest)}


@tool(write=True, intent="Empty the trash", confirm="always")
def empty_trash(ws: Workspace) -> dict[str, Any]:
    """Permanently remove everything in the trash to free space. This cannot be undone.

    Returns {removed, freed_bytes}.
    """
    trash = ws.trash_dir
    if not os.path.lexists(trash):
        return {"removed": 0, "freed_bytes": 0}
    removed = len(_trash_index(ws))
    freed = _tree_size(str(trash))
    if trash.is_symlink() or not trash.is_dir():
        os.unlink(trash)
    else:
        shutil.rmtree(trash)
    return {"removed": removed, "freed_bytes": freed}


# -- archives --------------------------------------------------------------------------------


def _zipfile(ws: Workspace, path: str) -> tuple[str, zipfile.ZipFile]:
    real = ws.file(path)
    try:
        return real, zipfile.ZipFile(io.BytesIO(ws.read_bytes(real)))
    except zipfile.BadZipFile:
        raise ToolError(f"{shown(ws.rel(real))} is not a zip archive") from None


@tool(write=False, intent="List the contents of the archive {path}", pools={"path": "zip_file"})
def list_archive(ws: Workspace, path: str) -> dict[str, Any]:
    """List the files inside a zip archive without extracting it.

    Returns {path, members: [{name, size, compressed_size}], total_size}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The .zip file, e.g. "archives/backup-2025-01.zip".
    """
    real, zf = _zipfile(ws, path)
    with zf:
        members = [{"name": i.filename, "size": i.file_size, "compressed_size": i.compress_size} for i in zf.infolist()]
    return {"path": ws.rel(real), "members": members[:_MAX_RESULTS], "total_size": sum(m["size"] for m in members)}


@tool(
    write=True,
    intent="Create the zip archive {archive_path} from {source}",
    samples={"archive_path": ("archives/notes-2026.zip", "archives/docs-export.zip", "backup.zip", "tmp/bundle.zip")},
    pools={"source": "directory"},
)
def create_archive(ws: Workspace, source: str, archive_path: str) -> dict[str, Any]:
    """Pack a file or folder into a new zip archive (symbolic links are left out).

    Members are named relative to the source's parent folder, so the folder's own name is kept.
    Returns {path, members, size}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        source: The file or folder to pack, e.g. "notes".
        archive_path: The new archive, ending in ".zip", e.g. "archives/notes-2026.zip".
    """
    if not archive_path.lower().endswith(".zip"):
        raise ToolError(f"archive_path must end in '.zip', e.g. 'archives/backup.zip', got {shown(archive_path)}")
    src = ws.resolve(source, arg="source")
    st = ws.lstat(src, source, "source")
    dest = ws.new(archive_path, "archive_path")
    base = os.path.dirname(src) if src != ws.root else src
    entries = [(src, st)] if not stat.S_ISDIR(st.st_mode) else list(ws.walk(src))
    buf = io.BytesIO()
    count = 0
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for child, cst in entries:
            name = os.path.relpath(child, base).replace(os.sep, "/")
            if stat.S_ISDIR(cst.st_mode):
                info = zipfile.ZipInfo(name + "/", date_time=_ZIP_DATE)
                info.external_attr = (0o40000 | stat.S_IMODE(cst.st_mode)) << 16
                zf.writestr(info, b"")
            elif stat.S_ISREG(cst.st_mode):
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = stat.S_IMODE(cst.st_mode) << 16
                zf.writestr(info, ws.read_bytes(child))
                count += 1
    data = buf.getvalue()
    ws.write_bytes(dest, data)
    return {"path": ws.rel(dest), "members": count, "size": len(data)}


@tool(
    write=True,
    intent="Extract the archive {path}[ into {destination}]",
    samples={"destination": ("restored", "tmp/extract", "archives/unpacked")},
    pools={"path": "zip_file"},
)
def extract_archive(ws: Workspace, path: str, destination: str | None = None) -> dict[str, Any]:
    """Unpack a zip archive into a folder (created when missing). Existing files are never overwritten.

    The whole archive is refused, before anything is written, when a member would land outside
    the destination (an absolute name or ".."), is a symbolic link, already exists, or the
    content would not fit in the quota. Returns {path, destination, files}.

    Args:
        ws: Workspace of this call, supplied by the server (not a tool argument).
        path: The .zip file, e.g. "archives/backup-2025-01.zip".
        destination: Folder to extract into, e.g. "restored"; defaults to a folder named after
            the archive next to it (e.g. "archives/backup-2025-01").
    """
    real, zf = _zipfile(ws, path)
    if destination is None:
        destination = ws.rel(os.path.splitext(real)[0])
    dest_parts = ws.parts(destination, arg="destination")
    if not dest_parts:
        raise ToolError("destination must be a folder inside the workspace, e.g. 'restored'")
    with zf:
        plan: list[tuple[zipfile.ZipInfo, str]] = []
        total = 0
        for info in zf.infolist():
            name = info.filename
            parts = name.replace("\\", "/").split("/")
            if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in parts or "\x00" in name:
                raise ToolError(
                    f"archive member {shown(name)} would land outside the destination folder; "
                    "the archive is refused and nothing was extracted"
                )
            if stat.S_ISLNK(info.external_attr >> 16):
                raise ToolError(
                    f"archive member {shown(name)} is a symbolic link; the archive is refused and nothing was extracted"
                )
            target = ws.resolve("/".join(dest_parts + [p for p in parts if p not in ("", ".")]), arg="archive member")
            dest_root = ws.resolve("/".join(dest_parts), arg="destination")
            if not (target == dest_root or target.startswith(dest_root + os.sep)):
                raise ToolError(
                    f"archive member {shown(name)} would land outside the destination folder; nothing was extracted"
                )
            if not info.is_dir():
                if os.path.lexists(target):
                    raise ToolError(f"{shown(ws.rel(target))} already exists; extract into another destination folder")
                total += info.file_size
            plan.append((info, target))
        ws.check_quota(total)
        create_directory(ws, "/".join(dest_parts))
        files = 0
        for info, target in plan:
            if info.is_dir():
                create_directory(ws, ws.rel(target))
                continue
            if os.path.dirname(target) != ws.root:
                create_directory(ws, ws.rel(os.path.dirname(target)))
            data = zf.read(info)
            ws.write_bytes(target, data)
            files += 1
    return {"path": ws.rel(real), "destination": "/".join(dest_parts), "files": files}


TOOLS: dict[str, ToolInfo] = registry.tools
"""The tools by name, in the order the model sees them."""
