"""The entities of a folder tree: the paths of each kind that synthesis draws arguments from."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gym_mcp.servers.filesystem.workspace import TRASH
from gym_mcp.servers.kit.directory import EntityTables

__all__ = ["entities"]


def entities(root: Path) -> EntityTables:
    """The paths of a tree by kind, the pools synthesis draws path arguments from.

    Tables ``folders`` (column ``directory``), ``files`` (``file``, and ``text_file``,
    ``csv_file``, ``summary_file`` or ``zip_file`` where it is one), ``links`` (``link``) and
    ``trash`` (``trash_id``); the tools' ``pools`` name these columns. Links are not followed
    and the trash's contents are not paths a tool takes.
    """
    root = Path(root)
    tables: EntityTables = {"folders": [], "files": [], "links": [], "trash": []}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == root and TRASH in dirnames:
            dirnames.remove(TRASH)
        dirnames.sort()
        for name in dirnames + sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                tables["links"].append({"link": rel})
            elif path.is_dir():
                tables["folders"].append({"directory": rel})
            elif path.is_file():
                tables["files"].append({"file": rel, **_file_kinds(path, rel)})
    index = root / TRASH / "index.json"
    if index.is_file() and not index.is_symlink():
        for trash_id in sorted(json.loads(index.read_text())):
            tables["trash"].append({"trash_id": trash_id})
    return tables


def _file_kinds(path: Path, rel: str) -> dict[str, str]:
    """The kinds of one regular file beyond "file": text, CSV, JSON summary, zip archive."""
    data = path.read_bytes()
    kinds: dict[str, str] = {}
    if rel.endswith(".zip"):
        kinds["zip_file"] = rel
        return kinds
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return kinds
    if text.strip() and "\x00" not in text:
        kinds["text_file"] = rel
    if rel.endswith(".csv"):
        kinds["csv_file"] = rel
    if rel.endswith(".json"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and {"topic", "owner", "totals", "items"} <= set(doc):
            kinds["summary_file"] = rel
    return kinds
