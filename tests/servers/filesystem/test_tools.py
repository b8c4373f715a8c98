"""Every filesystem tool succeeds on the seeded workspace, and its common errors read well."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

from tests.servers.filesystem.conftest import FsServer


def test_browse(fs: FsServer, root: Path) -> None:
    listing = fs.ok("list_directory", path="/")
    names = [e["name"] for e in listing["entries"]]
    assert {"README.md", "docs", "src", "data", "notes"} <= set(names)
    assert {"name": "README.md", "type": "file", "size": (root / "README.md").stat().st_size} in listing["entries"]
    assert fs.ok("list_directory", path="data")["path"] == "data"
    outline = fs.ok("tree", path="docs", max_depth=1)["tree"].splitlines()
    assert "guides/" in outline and "index.md" in outline
    assert fs.ok("stat", path="scripts/build.sh") == {
        "path": "scripts/build.sh",
        "type": "file",
        "size": (root / "scripts/build.sh").stat().st_size,
        "mode": "0o755",
    }
    assert fs.ok("stat", path="/")["type"] == "folder"
    assert fs.ok("exists", path="notes/todo.txt") == {"path": "notes/todo.txt", "exists": True, "type": "file"}
    assert fs.ok("exists", path="notes/nope.txt")["exists"] is False
    fs.error("list_directory", "is a file", path="README.md")
    fs.error("tree", "max_depth", path="/", max_depth=0)


def test_read(fs: FsServer, root: Path) -> None:
    text = (root / "notes/todo.txt").read_text()
    lines = text.splitlines()
    assert fs.ok("read_file", path="notes/todo.txt")["content"] == text
    assert fs.ok("read_file", path="/notes/todo.txt", max_chars=5)["truncated"] is True
    got = fs.ok("read_lines", path="notes/todo.txt", start=2, end=3)
    assert [r["text"] for r in got["lines"]] == lines[1:3] and got["total_lines"] == len(lines)
    assert fs.ok("head", path="notes/todo.txt", lines=2)["content"] == "".join(text.splitlines(True)[:2])
    assert fs.ok("tail", path="notes/todo.txt", lines=1)["content"] == text.splitlines(True)[-1]
    preview = fs.ok("csv_preview", path="data/reference/cities.csv", rows=2)
    assert preview["columns"] == ["city", "country_code"] and len(preview["rows"]) == 2
    assert fs.ok("json_get", path="data/config/prod.json", key_path="database.port")["value"] == 5432
    assert fs.ok("json_get", path="data/config/prod.json")["value"]["environment"] == "prod"
    fs.error("json_get", "not found", "keys there", path="data/config/prod.json", key_path="database.nope")
    fs.error("read_file", "binary file", path="archives/backup-2025-01.zip")
    fs.error("read_file", "is a folder", path="docs")
    fs.error("read_lines", "start", path="notes/todo.txt", start=3, end=2)
    fs.error("read_file", "does not exist", "list_directory", path="docs/missing.md")


def test_search(fs: FsServer, root: Path) -> None:
    csvs = fs.ok("search_files", pattern="*.csv", path="data", max_results=500)["matches"]
    assert csvs and all(p.endswith(".csv") and p.startswith("data/") for p in csvs)
    assert fs.ok("search_files", pattern="config/*.json", path="data")["matches"] == [
        "data/config/dev.json",
        "data/config/prod.json",
        "data/config/staging.json",
    ]
    hits = fs.ok("grep", pattern="5432", path="data/config")["matches"]
    assert [h["path"] for h in hits] == ["data/config/dev.json", "data/config/prod.json", "data/config/staging.json"]
    assert fs.ok("grep", pattern=r"^def \w+_", regex=True, path="src")["matches"]
    assert fs.ok("grep", pattern="STANDUP", ignore_case=True, path="notes")["matches"]
    fs.error("grep", "invalid regular expression", pattern="(", regex=True)
    big = fs.ok("find_by_size", min_bytes=1000, path="/")["files"]
    assert big and all(f["size"] >= 1000 for f in big)
    assert [f["size"] for f in big] == sorted((f["size"] for f in big), reverse=True)
    largest = fs.ok("largest_files", limit=3)
    assert len(largest) == 3 and largest[0]["size"] >= largest[-1]["size"]
    empty = fs.ok("find_empty")
    assert {"build", "tmp/cache", "data/incoming"} <= set(empty["folders"])
    groups = [g["paths"] for g in fs.ok("find_duplicates")["groups"]]
    assert ["notes/todo-old.txt", "notes/todo.txt"] in groups
    assert ["docs/guides/README.md", "docs/index.md"] in groups
    counts = fs.ok("count_files_by_extension", path="/")
    assert counts[".py"] > 10 and counts[".csv"] > 10 and counts[".zip"] == 5


def test_measure(fs: FsServer, root: Path) -> None:
    data = (root / "README.md").read_bytes()
    assert fs.ok("file_hash", path="README.md")["hash"] == hashlib.sha256(data).hexdigest()
    assert fs.ok("file_hash", path="README.md", algorithm="md5")["hash"] == hashlib.md5(data).hexdigest()
    fs.error("file_hash", "algorithm", path="README.md", algorithm="crc")
    text = data.decode()
    assert fs.ok("word_count", path="README.md") == {
        "path": "README.md",
        "lines": len(text.splitlines()),
        "words": len(text.split()),
        "characters": len(text),
    }
    assert fs.ok("line_count", path="README.md")["lines"] == len(text.splitlines())
    assert fs.ok("line_count", path="src")["files"] > 10
    usage = fs.ok("disk_usage", path="data")
    assert usage["bytes"] == sum(p.stat().st_size for p in (root / "data").rglob("*") if p.is_file())
    quota = fs.ok("quota_info")
    assert quota["trash_bytes"] == sum(p.stat().st_size for p in (root / ".trash").rglob("*") if p.is_file()) > 0
    assert quota["used_bytes"] == fs.ok("disk_usage")["bytes"] + quota["trash_bytes"]
    assert quota["free_bytes"] == quota["quota_bytes"] - quota["used_bytes"]
    diff = fs.ok("diff_files", path_a="notes/todo.txt", path_b="notes/todo-old.txt")
    assert diff == {"identical": True, "diff": ""}
    diff = fs.ok("diff_files", path_a="notes/todo.txt", path_b="notes/ideas.md")
    assert diff["identical"] is False and diff["diff"].startswith("--- notes/todo.txt")


def test_compare_directories(fs: FsServer) -> None:
    fs.ok("copy", source="docs", destination="docs-copy")
    assert fs.ok("compare_directories", path_a="docs", path_b="docs-copy")["different"] == []
    fs.ok("append_file", path="docs-copy/index.md", content="extra\n")
    fs.ok("write_file", path="docs-copy/new.md", content="x")
    result = fs.ok("compare_directories", path_a="docs", path_b="docs-copy")
    assert result["different"] == ["index.md"] and result["only_in_b"] == ["new.md"] and result["only_in_a"] == []


def test_write_and_edit(fs: FsServer, root: Path) -> None:
    assert fs.ok("write_file", path="notes/plan.md", content="a\nb\nc\n") == {
        "path": "notes/plan.md",
        "size": 6,
        "created": True,
    }
    fs.error("write_file", "overwrite=true", path="notes/plan.md", content="z")
    assert fs.ok("write_file", path="notes/plan.md", content="1\n2\n3\n", overwrite=True)["created"] is False
    fs.error("write_file", "create_directory", path="nowhere/x.md", content="z")
    fs.ok("append_file", path="notes/plan.md", content="4\n")
    assert fs.ok("insert_lines", path="notes/plan.md", line=1, text="0")["total_lines"] == 5
    assert fs.ok("delete_lines", path="notes/plan.md", start=2, end=3)["deleted"] == 2
    assert fs.ok("replace_in_file", path="notes/plan.md", old="4", new="four")["replacements"] == 1
    assert (root / "notes/plan.md").read_text() == "0\n3\nfour\n"
    fs.error("replace_in_file", "does not occur", path="notes/plan.md", old="zzz", new="y")
    fs.error("delete_lines", "the file has 3 lines", path="notes/plan.md", start=2, end=9)
    fs.error("insert_lines", "between 1 and 4", path="notes/plan.md", line=9, text="x")
    assert fs.ok("create_directory", path="reports/2026/q1") == {"path": "reports/2026/q1", "created": True}
    assert fs.ok("create_directory", path="reports/2026")["created"] is False
    fs.error("create_directory", "is a file", path="README.md/sub")
    assert fs.ok("touch", path="reports/.keep")["created"] is True
    assert fs.ok("touch", path="README.md")["created"] is False
    assert (root / "reports/.keep").read_bytes() == b""


def test_read_only_file_and_chmod(fs: FsServer, root: Path) -> None:
    journal = root / "notes/personal/journal-1.txt"
    before = journal.read_bytes()
    fs.error("append_file", "read-only", "chmod", path="notes/personal/journal-1.txt", content="x")
    assert journal.read_bytes() == before
    assert fs.ok("chmod", path="notes/personal/journal-1.txt", mode="644")["mode"] == "0o644"
    fs.ok("append_file", path="notes/personal/journal-1.txt", content="x")
    assert fs.ok("chmod", path="scripts/lint.sh", mode="0o700")["mode"] == "0o700"
    assert (root / "scripts/lint.sh").stat().st_mode & 0o777 == 0o700
    fs.error("chmod", "read access", path="README.md", mode="044")
    fs.error("chmod", "octal", path="README.md", mode="rwx")
    fs.error("chmod", "full access", path="docs", mode="644")


def test_move_copy_rename(fs: FsServer, root: Path) -> None:
    assert fs.ok("move", source="notes/ideas.md", destination="docs") == {
        "source": "notes/ideas.md",
        "destination": "docs/ideas.md",
    }
    fs.ok("move", source="docs/ideas.md", destination="notes/ideas-2026.md")
    assert (root / "notes/ideas-2026.md").is_file() and not (root / "docs/ideas.md").exists()
    fs.error("move", "already exists", source="notes/todo.txt", destination="notes/todo-old.txt")
    fs.error("move", "into itself", source="docs", destination="docs/guides")
    assert fs.ok("rename", path="notes/ideas-2026.md", new_name="ideas.md")["new_path"] == "notes/ideas.md"
    fs.error("rename", "without '/'", path="notes/ideas.md", new_name="../x.md")
    copied = fs.ok("copy", source="data/config/prod.json", destination="data/config/prod-backup.json")
    assert copied["bytes"] == (root / "data/config/prod.json").stat().st_size
    assert (root / "data/config/prod-backup.json").read_bytes() == (root / "data/config/prod.json").read_bytes()
    fs.ok("copy", source="notes", destination="build")
    assert (root / "build/notes/todo.txt").is_file()


def test_symlinks_inside(fs: FsServer, root: Path) -> None:
    made = fs.ok("create_symlink", path="docs/latest.md", target="CHANGELOG.md")
    assert made == {"path": "docs/latest.md", "target": "../CHANGELOG.md", "target_path": "CHANGELOG.md"}
    assert os.readlink(root / "docs/latest.md") == "../CHANGELOG.md"
    assert fs.ok("read_file", path="docs/latest.md")["content"] == (root / "CHANGELOG.md").read_text()
    assert fs.ok("read_link", path="docs/latest.md")["target_path"] == "CHANGELOG.md"
    assert fs.ok("stat", path="docs/latest.md")["type"] == "symlink"
    fs.error("read_link", "not a symbolic link", path="README.md")
    fs.error("create_symlink", "does not exist", path="docs/x.md", target="nope.md")
    fs.error("create_symlink", "leaves the workspace", path="docs/x.md", target="../../etc/passwd")


def test_trash(fs: FsServer, root: Path) -> None:
    seeded = fs.ok("list_trash")  # the seed tree comes with two deleted items
    assert [(t["trash_id"], t["type"]) for t in seeded] == [("T1", "file"), ("T2", "folder")]
    assert seeded[1]["original_path"] == "tmp/old-exports"
    draft = seeded[0]["original_path"]
    assert draft.startswith("notes/draft-") and not (root / draft).exists()
    todo = (root / "notes/todo.txt").read_bytes()
    assert fs.ok("delete", path="notes/todo.txt") == {"path": "notes/todo.txt", "trash_id": "T3", "type": "file"}
    assert not (root / "notes/todo.txt").exists()
    gone = fs.ok("delete_directory", path="logs")
    assert gone["trash_id"] == "T4" and gone["files"] == 6  # five logs and the current.log link
    fs.error("delete", "delete_directory", path="docs")
    fs.error("delete_directory", "use delete", path="README.md")
    fs.error("delete_directory", "root", path="/")
    assert ".trash" not in [e["name"] for e in fs.ok("list_directory")["entries"]]
    assert not fs.ok("search_files", pattern="*.log")["matches"]
    fs.error("read_file", "trash", path=".trash/index.json")
    trash = fs.ok("list_trash")
    assert [(t["trash_id"], t["original_path"], t["type"]) for t in trash[2:]] == [
        ("T3", "notes/todo.txt", "file"),
        ("T4", "logs", "folder"),
    ]
    assert fs.ok("quota_info")["trash_bytes"] > len(todo)
    assert fs.ok("restore_from_trash", trash_id="T3") == {"trash_id": "T3", "path": "notes/todo.txt"}
    assert (root / "notes/todo.txt").read_bytes() == todo
    assert fs.ok("restore_from_trash", trash_id="T1") == {"trash_id": "T1", "path": draft}
    assert (root / draft).read_text().startswith("# ")
    fs.error("restore_from_trash", "list_trash", trash_id="T9")
    fs.ok("write_file", path="logs", content="in the way")
    fs.error("restore_from_trash", "already exists", trash_id="T4")
    assert fs.ok("restore_from_trash", trash_id="T4", destination="old-logs")["path"] == "old-logs"
    assert (root / "old-logs/current.log").is_symlink()
    fs.ok("delete", path="notes/todo-old.txt")
    assert fs.ok("empty_trash")["removed"] == 2  # the seeded folder and the old todo
    assert fs.ok("list_trash") == [] and not (root / ".trash").exists()


def test_archives(fs: FsServer, root: Path) -> None:
    listing = fs.ok("list_archive", path="archives/backup-2025-01.zip")
    assert len(listing["members"]) == 4
    made = fs.ok("create_archive", source="notes", archive_path="archives/notes.zip")
    names = zipfile.ZipFile(root / "archives/notes.zip").namelist()
    assert "notes/todo.txt" in names and made["members"] == len([n for n in names if not n.endswith("/")])
    fs.error("create_archive", ".zip", source="notes", archive_path="archives/notes.tar")
    fs.error("create_archive", "already exists", source="notes", archive_path="archives/notes.zip")
    got = fs.ok("extract_archive", path="archives/notes.zip", destination="restored")
    assert got["files"] == made["members"]
    assert (root / "restored/notes/todo.txt").read_bytes() == (root / "notes/todo.txt").read_bytes()
    fs.error("extract_archive", "already exists", path="archives/notes.zip", destination="restored")
    default = fs.ok("extract_archive", path="archives/backup-2025-01.zip")
    assert default["destination"] == "archives/backup-2025-01" and default["files"] == 4
    fs.error("list_archive", "not a zip", path="README.md")
