"""Composite states: named parts snapshotted, restored, diffed and copied together."""

from __future__ import annotations

from pathlib import Path

import pytest

from gym_mcp.errors import ConfigError, StateError
from gym_mcp.state import CompositeState, DirectoryState, JSONFileState, Snapshot, SQLiteState
from tests.state.data import fill, write_json


@pytest.fixture
def composite(tmp_path: Path) -> CompositeState:
    base = tmp_path / "work"
    (base / "db").mkdir(parents=True)
    db = SQLiteState(base / "db" / "state.db", volatile={"accounts": ["updated_at"]})
    fill(db.connection)
    repo = DirectoryState(base / "repo", ignore=["*.log"])
    (repo.root / "README.md").write_text("hello")
    (repo.root / "src").mkdir()
    (repo.root / "src" / "main.py").write_text("print(1)\n")
    cfg = JSONFileState(base / "cfg" / "config.json", volatile_keys=["ts"])
    cfg.path.parent.mkdir(parents=True)
    write_json(cfg.path, {"theme": "dark", "ts": 1})
    return CompositeState({"repo": repo, "db": db, "cfg": cfg})


def _mutate(c: CompositeState) -> None:
    db, repo, cfg = c.parts["db"], c.parts["repo"], c.parts["cfg"]
    assert isinstance(db, SQLiteState) and isinstance(repo, DirectoryState) and isinstance(cfg, JSONFileState)
    db.connection.execute("UPDATE accounts SET balance = 0 WHERE id = 'A1'")
    (repo.root / "README.md").write_text("changed")
    (repo.root / "notes.txt").write_text("new")
    write_json(cfg.path, {"theme": "light", "ts": 2})


def test_composite_snapshot_restore_fingerprint(composite: CompositeState) -> None:
    assert composite.kind == "composite"
    assert list(composite.parts) == ["cfg", "db", "repo"]
    with pytest.raises(TypeError):
        composite.parts["x"] = composite.parts["db"]  # type: ignore[index]
    snap = composite.snapshot()
    fp = composite.fingerprint()
    assert snap.kind == "composite"
    assert composite.fingerprint_of(snap) == fp
    assert Snapshot.of("composite", snap.data).digest == snap.digest
    _mutate(composite)
    assert composite.fingerprint() != fp
    assert composite.snapshot().digest != snap.digest
    composite.restore(snap)
    assert composite.fingerprint() == fp
    assert composite.snapshot().digest == snap.digest
    repo = composite.parts["repo"]
    assert isinstance(repo, DirectoryState)
    assert not (repo.root / "notes.txt").exists()
    assert (repo.root / "README.md").read_text() == "hello"


def test_composite_volatile_parts_stay_volatile(composite: CompositeState) -> None:
    fp = composite.fingerprint()
    db, repo, cfg = composite.parts["db"], composite.parts["repo"], composite.parts["cfg"]
    assert isinstance(db, SQLiteState) and isinstance(repo, DirectoryState) and isinstance(cfg, JSONFileState)
    db.connection.execute("UPDATE accounts SET updated_at = 'later'")
    (repo.root / "debug.log").write_text("noise")
    write_json(cfg.path, {"ts": 99, "theme": "dark"})
    assert composite.fingerprint() == fp


def test_composite_diff_group_names(composite: CompositeState) -> None:
    before = composite.snapshot()
    _mutate(composite)
    diff = composite.diff(before, composite.snapshot())
    assert set(diff.groups) == {"db.accounts", "repo.files", "cfg.json"}
    assert [(b["balance"], a["balance"]) for b, a in diff["db.accounts"].changed] == [(100, 0)]
    assert diff["repo.files"].added == ("notes.txt",)
    assert diff["cfg.json"].changed == (({"path": "$.theme", "value": "dark"}, {"path": "$.theme", "value": "light"}),)
    assert diff.summary() == "cfg.json: +0 -0 ~1\ndb.accounts: +0 -0 ~1\nrepo.files: +1 -0 ~1"
    assert not composite.diff(before, before)


def test_composite_refuses_mismatched_snapshots(composite: CompositeState, tmp_path: Path) -> None:
    db = composite.parts["db"]
    other = CompositeState({"db": db})
    with pytest.raises(StateError, match="do not match"):
        composite.restore(other.snapshot())
    with pytest.raises(StateError, match="do not match"):
        composite.fingerprint_of(other.snapshot())
    with pytest.raises(StateError, match="sqlite"):
        composite.restore(db.snapshot())
    # a part of the wrong kind is refused before anything is restored
    swapped = CompositeState(
        {"cfg": JSONFileState(tmp_path / "x.json"), "db": db, "repo": JSONFileState(tmp_path / "y.json")}
    )
    fp = composite.fingerprint()
    with pytest.raises(StateError, match="json"):
        composite.restore(swapped.snapshot())
    assert composite.fingerprint() == fp
    with pytest.raises(StateError, match="composite"):
        composite.restore(Snapshot.of("composite", b"garbage"))


def test_composite_bad_part_names() -> None:
    with pytest.raises(ConfigError):
        CompositeState({})
    for name in ("", ".", "..", "a/b"):
        with pytest.raises(ConfigError):
            CompositeState({name: SQLiteState(None)})


def test_composite_copy_to(composite: CompositeState, tmp_path: Path) -> None:
    dest = tmp_path / "copies" / "env-1"
    copy = composite.copy_to(dest)
    assert isinstance(copy, CompositeState)
    assert list(copy.parts) == ["cfg", "db", "repo"]
    assert copy.parts["db"].location == dest / "db" / "state.db"
    assert copy.parts["repo"].location == dest / "repo"
    assert copy.parts["cfg"].location == dest / "cfg" / "config.json"
    assert copy.fingerprint() == composite.fingerprint()
    assert copy.snapshot().digest == composite.snapshot().digest
    # independent both ways
    fp = composite.fingerprint()
    _mutate(copy)
    assert composite.fingerprint() == fp
    copy_fp = copy.fingerprint()
    _mutate(composite)
    assert copy.fingerprint() == copy_fp
    # a composite snapshot moves between the original and its copy
    copy.restore(composite.snapshot())
    assert copy.fingerprint() == composite.fingerprint()
    copy.close()
    composite.close()


def test_composite_with_in_memory_part_and_nested(tmp_path: Path) -> None:
    mem = SQLiteState(None)
    fill(mem.connection)
    inner = CompositeState({"cfg": JSONFileState(tmp_path / "src" / "c.json")})
    outer = CompositeState({"mem": mem, "inner": inner})
    snap = outer.snapshot()
    assert Snapshot.of("composite", snap.data).digest == snap.digest
    copy = outer.copy_to(tmp_path / "dst")
    mem_copy = copy.parts["mem"]
    assert isinstance(mem_copy, SQLiteState) and mem_copy.in_memory
    inner_copy = copy.parts["inner"]
    assert isinstance(inner_copy, CompositeState)
    assert inner_copy.parts["cfg"].location == tmp_path / "dst" / "inner" / "cfg" / "c.json"
    assert copy.fingerprint() == outer.fingerprint()
    mem_copy.connection.execute("DELETE FROM accounts")
    assert mem.row_counts() == {"accounts": 5}


def test_composite_pack_and_unpack(composite: CompositeState) -> None:
    parts = {name: part.snapshot() for name, part in composite.parts.items()}
    packed = CompositeState.pack(dict(reversed(list(parts.items()))))  # order does not matter
    snap = composite.snapshot()
    assert packed.kind == "composite"
    assert packed.data == snap.data and packed.digest == snap.digest
    unpacked = CompositeState.unpack(packed)
    assert list(unpacked) == ["cfg", "db", "repo"]
    assert {n: s.digest for n, s in unpacked.items()} == {n: s.digest for n, s in parts.items()}
    _mutate(composite)
    composite.restore(packed)
    assert composite.snapshot().digest == snap.digest
    with pytest.raises(StateError, match="sqlite"):
        CompositeState.unpack(parts["db"])
