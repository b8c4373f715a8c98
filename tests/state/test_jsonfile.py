"""JSON and JSON-lines files as state: fingerprints on parsed content, diffs by path and id."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gym_mcp.errors import StateError
from gym_mcp.state import DirectoryState, JSONFileState
from tests.state.data import write_json


def _write_lines(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_json_copy_to_is_equal_then_independent(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write_json(path, {"users": [{"name": "ann", "seen": 1}], "n": 1}, indent=2)
    orig = JSONFileState(path, volatile_keys=["seen"])
    copy = orig.copy_to(tmp_path / "a" / "b" / "copy.json")
    assert isinstance(copy, JSONFileState)
    assert copy.location.read_bytes() == path.read_bytes()
    assert copy.volatile_keys == orig.volatile_keys
    assert copy.fingerprint() == orig.fingerprint()
    assert copy.snapshot().digest == orig.snapshot().digest
    fp = orig.fingerprint()
    write_json(copy.location, {"users": [], "n": 2})
    assert orig.fingerprint() == fp
    write_json(path, {"users": [{"name": "bob"}], "n": 3})
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
    write_json(path, doc)
    st = JSONFileState(path, volatile_keys=["updated"])
    fp = st.fingerprint()
    before = st.snapshot()
    write_json(path, {"updated": "t9", "items": [{"id": 1, "meta": {"updated": "t9", "v": 1}}]})
    assert st.fingerprint() == fp
    assert not st.diff(before, st.snapshot())
    write_json(path, {"items": [{"id": 1, "meta": {"v": 1}}]})  # volatile keys gone entirely
    assert st.fingerprint() == fp
    write_json(path, {"updated": "t9", "items": [{"id": 1, "meta": {"updated": "t9", "v": 2}}]})
    assert st.fingerprint() != fp
    diff = st.diff(before, st.snapshot())
    assert [(b["path"], b["value"], a["value"]) for b, a in diff["json"].changed] == [("$.items[0].meta.v", 1, 2)]
    assert not diff["json"].added and not diff["json"].removed
    # added values come without their volatile keys
    write_json(path, {**doc, "extra": {"updated": "t1", "k": "v"}})
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
    write_json(path, {"users": users, "settings": {"theme": "dark", "odd key": 1}, "gone": True})
    st = JSONFileState(path)
    before = st.snapshot()
    users = [{"name": "ann", "age": 30}, {"name": "bob", "age": 41}, {"name": "cyd", "age": 50}]
    users.append({"name": "dee", "age": 20})
    write_json(path, {"users": users, "settings": {"theme": "dark", "odd key": 2, "lang": "en"}})
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
    write_json(path, {"a": {"x": 1}, "b": 1})
    st = JSONFileState(path)
    before = st.snapshot()
    write_json(path, {"a": [1], "b": True})
    changed = st.diff(before, st.snapshot())["json"].changed
    assert [(b["path"], b["value"], a["value"]) for b, a in changed] == [
        ("$.a", {"x": 1}, [1]),
        ("$.b", 1, True),
    ]


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
