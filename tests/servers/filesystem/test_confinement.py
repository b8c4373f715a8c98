"""No tool reaches outside the workspace: .., host paths, planted links, long names, NUL bytes, zip-slip, quota."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from tests.servers.filesystem.conftest import FsServer


@pytest.mark.parametrize("path", ["..", "../x", "docs/../../x", "/../etc/passwd", "a/b/../../../c"])
def test_dotdot_leaving_the_root_is_refused(fs: FsServer, path: str) -> None:
    fs.error("read_file", "leaves the workspace", "relative to the workspace root", path=path)
    fs.error("write_file", "leaves the workspace", path=path, content="x")
    fs.error("list_directory", "leaves the workspace", path=path)


def test_dotdot_inside_the_root_is_fine(fs: FsServer) -> None:
    assert fs.ok("read_file", path="docs/../notes/./todo.txt")["path"] == "notes/todo.txt"


def test_host_absolute_paths_mean_the_workspace(fs: FsServer, tmp_path: Path) -> None:
    text = fs.error("read_file", "does not exist in the workspace", "not the host's", path="/etc/passwd")
    assert "root:" not in text
    assert fs.ok("read_file", path="/README.md")["path"] == "README.md"
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    fs.error("read_file", "does not exist", path=str(outside))
    fs.error("write_file", "create_directory", path=str(outside), content="mine")
    assert outside.read_text() == "secret"


def test_planted_links_to_outside_are_never_followed(fs: FsServer, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("secret")
    os.symlink(secret, root / "docs/secret.txt")
    os.symlink(outside, root / "escape")
    os.symlink(tmp_path / "outside" / "new.txt", root / "dangling.txt")
    for path in ("docs/secret.txt", "escape/secret.txt"):
        text = fs.error("read_file", "symbolic link that points outside the workspace", path=path)
        assert "secret" not in text.replace("secret.txt", "")
        fs.error("write_file", "outside the workspace", path=path, content="pwned", overwrite=True)
        fs.error("append_file", "outside the workspace", path=path, content="pwned")
        fs.error("replace_in_file", "outside the workspace", path=path, old="secret", new="pwned")
        fs.error("file_hash", "outside the workspace", path=path)
        fs.error("copy", "outside the workspace", source=path, destination="stolen.txt")
    fs.error("write_file", "outside the workspace", path="dangling.txt", content="pwned")
    fs.error("write_file", "outside the workspace", path="escape/new.txt", content="pwned")
    fs.error("list_directory", "outside the workspace", path="escape")
    fs.error("chmod", "outside the workspace", path="escape/secret.txt", mode="600")
    fs.error("create_symlink", "outside the workspace", path="x", target="escape/secret.txt")
    fs.error("move", "outside the workspace", source="README.md", destination="escape/README.md")
    fs.error("extract_archive", "outside the workspace", path="archives/backup-2025-01.zip", destination="escape")
    # the link itself can be inspected and removed; what it points at is untouched
    assert fs.ok("read_link", path="docs/secret.txt") == {
        "path": "docs/secret.txt",
        "target": str(secret),
        "target_path": None,
    }
    fs.ok("delete", path="docs/secret.txt")
    fs.ok("empty_trash")
    assert secret.read_text() == "secret" and sorted(os.listdir(outside)) == ["secret.txt"]
    assert oct(secret.stat().st_mode & 0o777) != "0o600"
    # searches do not descend into links
    assert not [m for m in fs.ok("grep", pattern="secret")["matches"] if "escape" in m["path"]]


def test_long_names_and_nul_bytes_are_refused(fs: FsServer) -> None:
    fs.error("write_file", "255 bytes", path="x" * 256, content="x")
    fs.error("write_file", "4096 bytes", path="a/" * 2100, content="x")
    fs.error("read_file", "NUL byte", path="README.md\x00.txt")
    fs.error("create_directory", "NUL byte", path="new\x00dir")
    fs.ok("write_file", path="x" * 255, content="ok")


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


@pytest.mark.parametrize("evil", ["../evil.txt", "ok/../../evil.txt", "/abs/evil.txt", "C:/evil.txt"])
def test_zip_slip_is_refused(fs: FsServer, root: Path, tmp_path: Path, evil: str) -> None:
    (root / "archives/evil.zip").write_bytes(_zip({"fine.txt": b"fine", evil: b"pwned"}))
    fs.error(
        "extract_archive",
        "outside the destination",
        "nothing was extracted",
        path="archives/evil.zip",
        destination="out",
    )
    assert not (root / "out").exists() and not (root / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()


def test_zip_symlink_member_is_refused(fs: FsServer, root: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("link")
        info.external_attr = (0o120777) << 16
        zf.writestr(info, "/etc/passwd")
    (root / "archives/link.zip").write_bytes(buf.getvalue())
    fs.error("extract_archive", "symbolic link", path="archives/link.zip", destination="out")
    assert not (root / "out").exists()


def test_quota(root: Path) -> None:
    used = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    fs = FsServer(root, quota_bytes=used + 1000)
    assert fs.ok("quota_info")["free_bytes"] == 1000
    fs.ok("write_file", path="a.txt", content="x" * 600)
    text = fs.error("write_file", "only 400 bytes are free", "empty_trash", path="b.txt", content="x" * 500)
    assert "quota" in text and not (root / "b.txt").exists()
    fs.error("append_file", "bytes are free", path="a.txt", content="x" * 401)
    fs.ok("write_file", path="a.txt", content="y" * 900, overwrite=True)  # replaces the 600 bytes
    fs.error("copy", "bytes are free", source="README.md", destination="README-2.md")
    fs.error("extract_archive", "bytes are free", path="archives/backup-2025-01.zip")
    fs.ok("delete", path="a.txt")  # the trash still counts
    fs.error("write_file", "bytes are free", path="c.txt", content="x" * 200)
    fs.ok("empty_trash")
    fs.ok("write_file", path="c.txt", content="x" * 200)
