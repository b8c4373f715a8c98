"""JSON-file and composite state backends, and private copies (copy_to) of every backend."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from gym_mcp._state import (
    CompositeState,
    DirectoryState,
    JSONFileState,
    Snapshot,
    SQLiteState,
    StateBackend,
)
from gym_mcp.errors import ConfigError, StateError


def _fill(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE accounts (id TEXT PRIMARY KEY, owner TEXT, balance INTEGER, updated_at TEXT)")
    conn.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?, ?)",
        [(f"A{i}", f"owner {i}", i * 100, f"2026-01-0{i}") for i in range(1, 6)],
    )


def _balance(st: SQLiteState, account: str) -> int:
    return int(st.connection.execute("SELECT balance FROM accounts WHERE id = ?", (account,)).fetchone()[0])


def _write_json(path: Path, value: object, **kwargs: object) -> None:
    path.write_text(json.dumps(value, **kwargs))  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# location


def test_location_of_each_backend(tmp_path: Path) -> None:
    db = SQLiteState(tmp_path / "s.db")
    assert db.location == tmp_path / "s.db"
    assert DirectoryState(tmp_path / "d").location == tmp_path / "d"
    assert JSONFileState(tmp_path / "c.json").location == tmp_path / "c.json"
    with pytest.raises(StateError, match="in-memory"):
        _ = SQLiteState(None).location
    with pytest.raises(StateError, match="composite"):
        _ = CompositeState({"db": db}).location


def test_base_class_defaults_raise(tmp_path: Path) -> None:
    class Minimal(StateBackend):
        kind = "minimal"

        def snapshot(self) -> Snapshot:
            return Snapshot.of(self.kind, b"")

        def restore(self, snapshot: Snapshot) -> None:
            pass

        def fingerprint(self) -> str:
            return ""

        def fingerprint_of(self, snapshot: Snapshot) -> str:
            return ""

        def diff(self, a: Snapshot, b: Snapshot):  # type: ignore[no-untyped-def]
            raise NotImplementedError

    with pytest.raises(StateError):
        _ = Minimal().location
    with pytest.raises(StateError):
        Minimal().copy_to(tmp_path / "x")


# --------------------------------------------------------------------------------------------
# copy_to


def test_sqlite_file_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    orig = SQLiteState(tmp_path / "orig.db", volatile={"accounts": ["updated_at"]})
    _fill(orig.connection)
    copy = orig.copy_to(tmp_path / "nested" / "deeper" / "copy.db")
    assert isinstance(copy, SQLiteState)
    assert copy.location == tmp_path / "nested" / "deeper" / "copy.db"
    assert copy.location.is_file()
    assert copy.volatile == orig.volatile
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest
    # a server in another process sees the copy's content in the file
    other = sqlite3.connect(copy.location)
    assert other.execute("SELECT COUNT(*) FROM accounts").fetchone()[0] == 5
    other.close()
    # independent both ways
    fp = orig.fingerprint()
    copy.connection.execute("UPDATE accounts SET balance = 0 WHERE id = 'A1'")
    assert orig.fingerprint() == fp
    assert _balance(orig, "A1") == 100
    orig.connection.execute("DELETE FROM accounts WHERE id = 'A2'")
    assert copy.row_counts() == {"accounts": 5}
    # volatile columns still ignored on the copy
    copy_fp = copy.fingerprint()
    copy.connection.execute("UPDATE accounts SET updated_at = 'later'")
    assert copy.fingerprint() == copy_fp
    copy.close()
    orig.close()


def test_sqlite_copy_onto_itself_is_refused(tmp_path: Path) -> None:
    st = SQLiteState(tmp_path / "s.db")
    _fill(st.connection)
    with pytest.raises(StateError, match="itself"):
        st.copy_to(tmp_path / "sub" / ".." / "s.db")
    st.close()


def test_sqlite_in_memory_copy_to_is_in_memory(tmp_path: Path) -> None:
    orig = SQLiteState(None, volatile={"accounts": ["updated_at"]})
    _fill(orig.connection)
    copy = orig.copy_to(tmp_path / "ignored.db")
    assert copy.in_memory
    assert not (tmp_path / "ignored.db").exists()
    assert copy.volatile == orig.volatile
    assert copy.fingerprint() == orig.fingerprint()
    copy.connection.execute("UPDATE accounts SET balance = 0")
    assert _balance(orig, "A3") == 300
    orig.connection.execute("DELETE FROM accounts")
    assert copy.row_counts() == {"accounts": 5}


def test_directory_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    orig = DirectoryState(root, ignore=["*.log"])
    (root / "a.txt").write_text("alpha")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("beta")
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o755)
    (root / "debug.log").write_text("noise")
    copy = orig.copy_to(tmp_path / "copies" / "one")
    assert isinstance(copy, DirectoryState)
    assert copy.location == tmp_path / "copies" / "one"
    assert copy.ignore == orig.ignore
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest  # ignored files copied too
    assert os.stat(copy.root / "run.sh").st_mode & 0o777 == 0o755
    fp = orig.fingerprint()
    (copy.root / "a.txt").write_text("changed")
    (copy.root / "new.txt").write_text("new")
    assert orig.fingerprint() == fp
    assert (root / "a.txt").read_text() == "alpha"
    (root / "sub" / "b.txt").unlink()
    assert (copy.root / "sub" / "b.txt").read_text() == "beta"


def test_directory_copy_to_overlapping_tree_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    st = DirectoryState(root)
    (root / "a.txt").write_text("alpha")
    for dest in (root, root / "inner", tmp_path):
        with pytest.raises(StateError, match="overlap"):
            st.copy_to(dest)
    assert not (root / "inner").exists()
    assert (root / "a.txt").read_text() == "alpha"


def test_directory_copy_to_replaces_existing_content(tmp_path: Path) -> None:
    st = DirectoryState(tmp_path / "src")
    (st.root / "a.txt").write_text("alpha")
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "stale.txt").write_text("old")
    copy = st.copy_to(dest)
    assert not (dest / "stale.txt").exists()
    assert copy.fingerprint() == st.fingerprint()


def test_json_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    _write_json(path, {"users": [{"name": "ann", "seen": 1}], "n": 1}, indent=2)
    orig = JSONFileState(path, volatile_keys=["seen"])
    copy = orig.copy_to(tmp_path / "a" / "b" / "copy.json")
    assert isinstance(copy, JSONFileState)
    assert copy.location.read_bytes() == path.read_bytes()
    assert copy.volatile_keys == orig.volatile_keys
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest
    fp = orig.fingerprint()
    _write_json(copy.location, {"users": [], "n": 2})
    assert orig.fingerprint() == fp
    _write_json(path, {"users": [{"name": "bob"}], "n": 3})
    assert json.loads(copy.location.read_text()) == {"users": [], "n": 2}


def test_json_copy_keeps_lines_mode_and_missing_file(tmp_path: Path) -> None:
    orig = JSONFileState(tmp_path / "log.jsonl")
    assert orig.lines
    stale = tmp_path / "copy.txt"
    stale.write_text("stale")
    copy = orig.copy_to(stale)  # the source file is missing: so is the copy
    assert copy.lines
    assert not stale.exists()
    assert copy.fingerprint() == orig.fingerprint()
    with pytest.raises(StateError, match="itself"):
        orig.copy_to(tmp_path / "log.jsonl")


# --------------------------------------------------------------------------------------------
# JSONFileState


def test_json_fingerprint_ignores_key_order_and_whitespace(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text('{"b": [1, 2, {"y": 1, "x": "é"}], "a": null}')
    b.write_text('{\n  "a": null,\n  "b": [\n    1,\n    2,\n    {"x": "\\u00e9", "y": 1}\n  ]\n}\n')
    sa, sb = JSONFileState(a), JSONFileState(b)
    assert sa.snapshot().digest != sb.snapshot().digest  # different bytes
    assert sa.fingerprint() == sb.fingerprint()  # same content
    b.write_text('{"a": null, "b": [2, 1, {"x": "é", "y": 1}]}')  # list order matters
    assert sa.fingerprint() != sb.fingerprint()
    b.write_text('{"a": null, "b": [1.0, 2, {"x": "é", "y": 1}]}')  # 1.0 is not 1 in JSON text
    assert sa.fingerprint() != sb.fingerprint()


def test_json_volatile_keys_ignored_at_any_depth(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    doc = {"updated": "t0", "items": [{"id": 1, "meta": {"updated": "t0", "v": 1}}]}
    _write_json(path, doc)
    st = JSONFileState(path, volatile_keys=["updated"])
    fp = st.fingerprint()
    before = st.snapshot()
    _write_json(path, {"updated": "t9", "items": [{"id": 1, "meta": {"updated": "t9", "v": 1}}]})
    assert st.fingerprint() == fp
    assert not st.diff(before, st.snapshot())
    _write_json(path, {"items": [{"id": 1, "meta": {"v": 1}}]})  # volatile keys gone entirely
    assert st.fingerprint() == fp
    _write_json(path, {"updated": "t9", "items": [{"id": 1, "meta": {"updated": "t9", "v": 2}}]})
    assert st.fingerprint() != fp
    diff = st.diff(before, st.snapshot())
    assert [(b["path"], b["value"], a["value"]) for b, a in diff["json"].changed] == [("$.items[0].meta.v", 1, 2)]
    assert not diff["json"].added and not diff["json"].removed
    # added values come without their volatile keys
    _write_json(path, {**doc, "extra": {"updated": "t1", "k": "v"}})
    added = st.diff(before, st.snapshot())["json"].added
    assert added == ({"path": "$.extra", "value": {"k": "v"}},)


def test_json_snapshot_restore_exact_in_place(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"b": 1,\n "a": [1, 2, 3]}\n')
    st = JSONFileState(path)
    snap = st.snapshot()
    raw, fp, inode = path.read_bytes(), st.fingerprint(), os.stat(path).st_ino
    assert snap.data == raw and snap.kind == "json"
    assert st.fingerprint_of(snap) == fp
    # longer then shorter content: truncate must drop the tail
    path.write_text(json.dumps({"b": 2, "a": list(range(1000))}))
    assert st.fingerprint() != fp
    st.restore(snap)
    assert path.read_bytes() == raw
    assert st.fingerprint() == fp
    assert st.snapshot().digest == snap.digest
    assert os.stat(path).st_ino == inode
    path.write_text("{}")
    st.restore(snap)
    assert path.read_bytes() == raw
    assert os.stat(path).st_ino == inode


def test_json_restore_is_seen_through_an_open_handle(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"v": 1}')
    st = JSONFileState(path)
    snap = st.snapshot()
    with open(path, "rb") as held:  # a server holding the file open
        path.write_text('{"v": 2, "more": true}')
        st.restore(snap)
        held.seek(0)
        assert held.read() == b'{"v": 1}'


def test_json_restore_of_missing_file_removes_it_and_recreates(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "state.json"
    st = JSONFileState(path)
    missing = st.snapshot()
    assert missing.data == b""
    missing_fp = st.fingerprint()
    path.parent.mkdir()
    path.write_text('{"v": 1}')
    present = st.snapshot()
    assert st.fingerprint() != missing_fp
    assert st.diff(missing, present)["json"].added == ({"path": "$", "value": {"v": 1}},)
    assert st.diff(present, missing)["json"].removed == ({"path": "$", "value": {"v": 1}},)
    st.restore(missing)
    assert not path.exists()
    assert st.fingerprint() == missing_fp
    st.restore(missing)  # already missing: fine
    path.parent.rmdir()
    st.restore(present)  # parents recreated
    assert path.read_text() == '{"v": 1}'


def test_json_unparsable_file_fingerprints_raw_bytes(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"v": 1,')
    st = JSONFileState(path)
    fp = st.fingerprint()
    broken = st.snapshot()
    assert st.fingerprint_of(broken) == fp
    path.write_text('{"v": 1, ')
    assert st.fingerprint() != fp  # raw bytes differ
    path.write_text('{"v": 1}')
    diff = st.diff(broken, st.snapshot())
    assert diff["json"].changed == (({"path": "$", "value": '{"v": 1,'}, {"path": "$", "value": {"v": 1}}),)


def test_json_object_diff_paths(tmp_path: Path) -> None:
    path = tmp_path / "db.json"
    users = [{"name": "ann", "age": 30}, {"name": "bob", "age": 40}, {"name": "cy", "age": 50}]
    _write_json(path, {"users": users, "settings": {"theme": "dark", "odd key": 1}, "gone": True})
    st = JSONFileState(path)
    before = st.snapshot()
    users = [{"name": "ann", "age": 30}, {"name": "bob", "age": 41}, {"name": "cyd", "age": 50}]
    users.append({"name": "dee", "age": 20})
    _write_json(path, {"users": users, "settings": {"theme": "dark", "odd key": 2, "lang": "en"}})
    group = st.diff(before, st.snapshot())["json"]
    assert {(b["path"], b["value"], a["value"]) for b, a in group.changed} == {
        ("$.users[1].age", 40, 41),
        ("$.users[2].name", "cy", "cyd"),
        ('$.settings["odd key"]', 1, 2),
    }
    assert all(b["path"] == a["path"] for b, a in group.changed)
    assert set(map(json.dumps, group.added)) == {
        json.dumps({"path": "$.users[3]", "value": {"name": "dee", "age": 20}}),
        json.dumps({"path": "$.settings.lang", "value": "en"}),
    }
    assert group.removed == ({"path": "$.gone", "value": True},)
    assert st.diff(before, st.snapshot()).summary() == "json: +2 -1 ~3"
    assert not st.diff(before, before)


def test_json_type_change_is_one_changed_entry(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    _write_json(path, {"a": {"x": 1}, "b": 1})
    st = JSONFileState(path)
    before = st.snapshot()
    _write_json(path, {"a": [1], "b": True})
    changed = st.diff(before, st.snapshot())["json"].changed
    assert [(b["path"], b["value"], a["value"]) for b, a in changed] == [
        ("$.a", {"x": 1}, [1]),
        ("$.b", 1, True),
    ]


def _write_lines(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_jsonl_records_keyed_by_id(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    records: list[dict[str, object]] = [{"id": i, "kind": "e", "n": i} for i in range(1, 6)]
    _write_lines(path, records)
    st = JSONFileState(path)
    assert st.lines
    before = st.snapshot()
    inserted = [*records[:2], {"id": 99, "kind": "new", "n": 0}, *records[2:]]
    _write_lines(path, inserted)
    group = st.diff(before, st.snapshot())["json"]
    assert group.added == ({"path": "$[id=99]", "value": {"id": 99, "kind": "new", "n": 0}},)
    assert not group.removed and not group.changed
    # a change and a removal, by id
    after = [dict(r) for r in inserted if r["id"] != 4]
    after[0]["n"] = 100
    _write_lines(path, after)
    group = st.diff(before, st.snapshot())["json"]
    assert [(b["path"], b["value"], a["value"]) for b, a in group.changed] == [("$[id=1].n", 1, 100)]
    assert [r["path"] for r in group.removed] == ["$[id=4]"]
    assert [r["path"] for r in group.added] == ["$[id=99]"]


def test_jsonl_string_ids_and_index_fallback(tmp_path: Path) -> None:
    path = tmp_path / "users.ndjson"
    _write_lines(path, [{"id": "u1", "v": 1}, {"id": "u2", "v": 2}])
    st = JSONFileState(path)
    before = st.snapshot()
    _write_lines(path, [{"id": "u0", "v": 0}, {"id": "u1", "v": 1}, {"id": "u2", "v": 2}])
    assert [r["path"] for r in st.diff(before, st.snapshot())["json"].added] == ['$[id="u0"]']
    # one record without an id: records are matched by index
    _write_lines(path, [{"v": 0}, {"id": "u1", "v": 1}, {"id": "u2", "v": 2}])
    group = st.diff(before, st.snapshot())["json"]
    assert [r["path"] for r in group.added] == ["$[2]"]
    assert {b["path"] for b, _ in group.changed} == {"$[0].v", "$[1].id", "$[1].v"}
    assert group.removed == ({"path": "$[0].id", "value": "u1"},)


def test_jsonl_fingerprint_and_blank_lines(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": 1, "x": 1, "ts": 5}\n{"id": 2}\n')
    b.write_text('\n{"x": 1,  "id": 1, "ts": 9}\n\n{"id":2}')
    sa, sb = JSONFileState(a, volatile_keys=["ts"]), JSONFileState(b, volatile_keys=["ts"])
    assert sa.fingerprint() == sb.fingerprint()
    assert (
        JSONFileState(tmp_path / "missing.jsonl").fingerprint()
        == JSONFileState(tmp_path / "missing2.jsonl").fingerprint()
    )


def test_json_wrong_snapshot_kind_is_refused(tmp_path: Path) -> None:
    st = JSONFileState(tmp_path / "s.json")
    with pytest.raises(StateError, match="directory"):
        st.restore(DirectoryState(tmp_path / "d").snapshot())


# --------------------------------------------------------------------------------------------
# CompositeState


@pytest.fixture
def composite(tmp_path: Path) -> CompositeState:
    base = tmp_path / "work"
    (base / "db").mkdir(parents=True)
    db = SQLiteState(base / "db" / "state.db", volatile={"accounts": ["updated_at"]})
    _fill(db.connection)
    repo = DirectoryState(base / "repo", ignore=["*.log"])
    (repo.root / "README.md").write_text("hello")
    (repo.root / "src").mkdir()
    (repo.root / "src" / "main.py").write_text("print(1)\n")
    cfg = JSONFileState(base / "cfg" / "config.json", volatile_keys=["ts"])
    cfg.path.parent.mkdir(parents=True)
    _write_json(cfg.path, {"theme": "dark", "ts": 1})
    return CompositeState({"repo": repo, "db": db, "cfg": cfg})


def _mutate(c: CompositeState) -> None:
    db, repo, cfg = c.parts["db"], c.parts["repo"], c.parts["cfg"]
    assert isinstance(db, SQLiteState) and isinstance(repo, DirectoryState) and isinstance(cfg, JSONFileState)
    db.connection.execute("UPDATE accounts SET balance = 0 WHERE id = 'A1'")
    (repo.root / "README.md").write_text("changed")
    (repo.root / "notes.txt").write_text("new")
    _write_json(cfg.path, {"theme": "light", "ts": 2})


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
    _write_json(cfg.path, {"ts": 99, "theme": "dark"})
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
    _fill(mem.connection)
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
