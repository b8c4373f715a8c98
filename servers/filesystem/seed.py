"""The deterministic seed tree: a small software project's folder, generated from a `random.Random`.

Everything written depends only on the seed: names, contents, permission bits (set explicitly,
whatever the umask) and the zip archives (fixed member dates). Modification times are not set:
they are not part of the state. The tree also holds symbolic links that stay inside it (a
"latest" document, the current log) and a trash with two deleted items, in the format the
trash tools keep (`TRASH`), so restoring and emptying have something to act on.
"""

from __future__ import annotations

import io
import json
import os
import random
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from gym_mcp.servers.filesystem.workspace import TRASH

__all__ = ["seed_tree"]

_PROJECTS = ("atlas", "beacon", "cobalt", "delta", "ember", "falcon", "granite", "harbor", "ion", "juniper")
_TOPICS = (
    "billing",
    "auth",
    "search",
    "reports",
    "sync",
    "export",
    "storage",
    "metrics",
    "scheduler",
    "notifications",
    "inventory",
    "pricing",
)
_TEXT = (
    "the service reads the queue and writes results to storage before the nightly export runs "
    "each request carries a token that the gateway checks against the cache then forwards upstream "
    "we agreed to move the legacy parser behind a feature flag until the migration is verified "
    "latency improved after batching the writes but memory use grew during peak traffic hours "
    "customers asked for a clearer invoice layout and a way to download reports as spreadsheets"
)
_WORDS = _TEXT.split()
_PEOPLE = ("Ana", "Bilal", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena")
_VERBS = ("load", "parse", "validate", "build", "merge", "export", "fetch", "render", "compute", "normalize")
_NOUNS = ("record", "batch", "invoice", "user", "report", "event", "config", "token", "page", "summary")
_STATUSES = ("paid", "pending", "failed", "refunded", "open")
_CITIES = ("Lisbon", "Nairobi", "Osaka", "Quito", "Riga", "Seoul", "Tunis", "Vienna", "Warsaw", "Zagreb")
_ZIP_DATE = (2025, 11, 3, 12, 0, 0)


def _sentence(rng: random.Random, lo: int = 6, hi: int = 14) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 4)))


def _markdown(rng: random.Random, title: str, sections: int = 2) -> str:
    out = [f"# {title}", "", _paragraph(rng), ""]
    for i in range(sections):
        out += [f"## {rng.choice(_NOUNS).capitalize()} {rng.choice(_VERBS)} ({i + 1})", "", _paragraph(rng), ""]
        out += [f"- {_sentence(rng, 3, 7)}" for _ in range(rng.randint(2, 4))]
        out.append("")
    if rng.random() < 0.3:
        out += [f"TODO: {_sentence(rng, 4, 8)}", ""]
    return "\n".join(out)


def _python(rng: random.Random, module: str) -> str:
    out = [f'"""The {module} module: {_sentence(rng, 4, 9).lower()}"""', "", "from __future__ import annotations", ""]
    out += ["import json", "from dataclasses import dataclass", "", ""]
    if rng.random() < 0.5:
        cls = rng.choice(_NOUNS).capitalize() + module.capitalize().replace("_", "")
        out += ["@dataclass", f"class {cls}:", f'    """A {module} {rng.choice(_NOUNS)}."""', ""]
        out += ["    name: str", f"    size: int = {rng.randint(1, 64)}", "", ""]
    for _ in range(rng.randint(2, 4)):
        name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"
        limit = rng.randint(2, 500)
        out += [f"def {name}(items: list[dict]) -> list[dict]:", f'    """{_sentence(rng, 4, 8)}"""']
        if rng.random() < 0.35:
            out.append(f"    # TODO: {_sentence(rng, 3, 6).lower()}")
        out += [f"    return [json.loads(json.dumps(i)) for i in items][:{limit}]", "", ""]
    return "\n".join(out).rstrip() + "\n"


def _javascript(rng: random.Random, name: str) -> str:
    out = [f"// {name}: {_sentence(rng, 4, 8)}", ""]
    for _ in range(rng.randint(2, 3)):
        fn = f"{rng.choice(_VERBS)}{rng.choice(_NOUNS).capitalize()}"
        out += [f"export function {fn}(items) {{", f"  return items.slice(0, {rng.randint(3, 40)});", "}", ""]
    return "\n".join(out)


def _csv(rng: random.Random, topic: str, rows: int) -> str:
    lines = ["id,date,customer,city,amount,status"]
    for i in range(rows):
        day = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        amount = f"{rng.randint(100, 99999) / 100:.2f}"
        lines.append(
            f"{topic[:3].upper()}-{1000 + i},{day},{rng.choice(_PEOPLE)},{rng.choice(_CITIES)},{amount},"
            f"{rng.choice(_STATUSES)}"
        )
    return "\n".join(lines) + "\n"


def _summary(rng: random.Random, topic: str) -> str:
    items: list[dict[str, Any]] = [
        {"name": f"{rng.choice(_VERBS)}-{rng.choice(_NOUNS)}", "count": rng.randint(1, 900), "ok": rng.random() < 0.8}
        for _ in range(rng.randint(3, 6))
    ]
    data = {
        "topic": topic,
        "generated": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "totals": {"count": sum(i["count"] for i in items), "amount": round(rng.uniform(100, 50000), 2)},
        "owner": {"name": rng.choice(_PEOPLE), "team": rng.choice(_TOPICS)},
        "items": items,
    }
    return json.dumps(data, indent=2) + "\n"


def _zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, members[name])
    return buf.getvalue()


class _Tree(NamedTuple):
    files: dict[str, bytes]
    modes: dict[str, int]
    """Permission bits of the files that are not 0o644."""
    empty: list[str]
    """Empty folders."""
    links: dict[str, str]
    """Symbolic links: path -> target, relative to the link's folder."""
    trash: dict[str, dict[str, bytes]]
    """Trash items: original path -> {member path below it ("" for a file): content}."""


def _tree(rng: random.Random) -> _Tree:
    """Generate the files, their modes, empty folders, links and the trash."""
    project = rng.choice(_PROJECTS)
    topics = rng.sample(_TOPICS, 8)
    text: dict[str, str] = {}
    modes: dict[str, int] = {}

    text["README.md"] = _markdown(rng, f"{project.capitalize()}", 3)
    text["LICENSE"] = f"Copyright 2025 the {project} authors.\n\nLicensed under the Apache License, Version 2.0.\n"
    text[".gitignore"] = "__pycache__/\n*.pyc\nbuild/\ntmp/\n.env\n"
    text["pyproject.toml"] = f'[project]\nname = "{project}"\nversion = "0.{rng.randint(1, 9)}.{rng.randint(0, 20)}"\n'
    text["Makefile"] = "test:\n\tpytest -q\n\nlint:\n\truff check src\n"
    text["CHANGELOG.md"] = "\n".join(
        f"## 0.{v}.0\n\n- {_sentence(rng, 4, 9)}\n- {_sentence(rng, 4, 9)}\n" for v in range(8, 0, -1)
    )

    text["docs/index.md"] = _markdown(rng, f"{project.capitalize()} documentation", 2)
    for t in topics:
        text[f"docs/guides/{t}.md"] = _markdown(rng, f"{t.capitalize()} guide", rng.randint(1, 3))
        text[f"docs/api/{t}.md"] = _markdown(rng, f"{t.capitalize()} API", 1)
    text["docs/architecture/overview.md"] = _markdown(rng, "Architecture overview", 3)
    for i in range(1, 7):
        text[f"docs/architecture/decisions/adr-{i:04d}-{rng.choice(_VERBS)}-{rng.choice(_NOUNS)}.md"] = _markdown(
            rng, f"ADR {i}", 1
        )

    pkg = f"src/{project}"
    text[f"{pkg}/__init__.py"] = f'"""{project.capitalize()}."""\n\n__version__ = "0.{rng.randint(1, 9)}.0"\n'
    for t in topics:
        text[f"{pkg}/{t}.py"] = _python(rng, t)
    for sub, mods in (
        ("utils", ("strings", "dates", "io", "retry", "cache")),
        ("models", ("user", "order", "invoice", "event")),
        ("api", ("routes", "handlers", "schemas", "middleware")),
        ("core/internal/legacy", ("compat", "shims")),
    ):
        text[f"{pkg}/{sub}/__init__.py"] = ""
        for m in mods:
            text[f"{pkg}/{sub}/{m}.py"] = _python(rng, m)
    for name in ("app", "api", "store"):
        text[f"src/web/{name}.js"] = _javascript(rng, name)
    for name in ("header", "footer", "table", "chart", "modal"):
        text[f"src/web/components/{name}.js"] = _javascript(rng, name)
    text["src/web/styles/main.css"] = "body {\n  margin: 0;\n  font-family: sans-serif;\n}\n"

    text["tests/conftest.py"] = '"""Shared fixtures."""\n'
    for t in topics:
        text[f"tests/test_{t}.py"] = f"from {project} import {t}\n\n\ndef test_{t}_imports():\n    assert {t}\n"
    for i in range(1, 4):
        text[f"tests/fixtures/sample_{i}.json"] = _summary(rng, rng.choice(topics))

    quarters = [(y, q) for y in (2024, 2025) for q in (1, 2, 3, 4)]
    raw = []
    for t in topics[:5]:
        for y, q in quarters[rng.randint(0, 2) :]:
            name = f"data/raw/{t}_{y}_q{q}.csv"
            text[name] = _csv(rng, t, rng.randint(4, 14))
            raw.append(name)
    for t in topics:
        text[f"data/processed/{t}_summary.json"] = _summary(rng, t)
    for env in ("dev", "staging", "prod"):
        cfg = {
            "environment": env,
            "database": {"host": f"db.{env}.internal", "port": 5432, "name": project},
            "features": {t: rng.random() < 0.5 for t in topics[:4]},
            "log_level": rng.choice(("debug", "info", "warning")),
        }
        text[f"data/config/{env}.json"] = json.dumps(cfg, indent=2) + "\n"
    text["data/reference/cities.csv"] = "city,country_code\n" + "".join(
        f"{c},{c[:2].upper()}\n" for c in sorted(_CITIES)
    )
    text["data/reference/statuses.csv"] = "status\n" + "".join(f"{s}\n" for s in _STATUSES)

    days = sorted(rng.sample(range(1, 330), 24))
    for d in days:
        month, day = 1 + (d - 1) // 28 % 12, 1 + (d - 1) % 28
        who = ", ".join(rng.sample(_PEOPLE, 3))
        text[f"notes/meetings/2025-{month:02d}-{day:02d}-standup.md"] = (
            f"# Standup 2025-{month:02d}-{day:02d}\n\nAttendees: {who}\n\n{_paragraph(rng)}\n\n"
            f"Action: {rng.choice(_PEOPLE)} to {rng.choice(_VERBS)} the {rng.choice(_NOUNS)}.\n"
        )
    todo = "".join(f"- [{' x'[rng.random() < 0.4]}] {_sentence(rng, 3, 7)}\n" for _ in range(rng.randint(5, 9)))
    text["notes/todo.txt"] = todo
    text["notes/ideas.md"] = _markdown(rng, "Ideas", 2)
    text["notes/reading-list.md"] = "".join(f"- {_sentence(rng, 2, 5)}\n" for _ in range(6))
    for i in range(1, 5):
        text[f"notes/personal/journal-{i}.txt"] = _paragraph(rng) + "\n"

    for name in ("build", "deploy", "backup", "lint"):
        text[f"scripts/{name}.sh"] = f"#!/bin/sh\nset -eu\necho '{name} {project}'\n"
        modes[f"scripts/{name}.sh"] = 0o755

    for i in range(1, 6):
        text[f"logs/app-{i}.log"] = "".join(
            f"2025-10-{i:02d}T{h:02d}:00:00 {rng.choice(('INFO', 'INFO', 'WARN', 'ERROR'))} {_sentence(rng, 3, 7)}\n"
            for h in range(rng.randint(4, 10))
        )

    # duplicates, for find_duplicates
    dup_src = rng.choice(raw)
    text[dup_src.replace(".csv", "_copy.csv")] = text[dup_src]
    text["notes/todo-old.txt"] = todo
    text["docs/guides/README.md"] = text["docs/index.md"]

    files = {k: v.encode() for k, v in text.items()}
    for i in range(1, 4):
        picked = rng.sample(sorted(k for k in text if k.startswith(("docs/", "notes/"))), 4)
        files[f"archives/backup-2025-{i:02d}.zip"] = _zip({k: text[k] for k in picked})
    for v in (1, 2):
        picked = rng.sample(sorted(k for k in text if k.startswith("src/")), 3)
        files[f"archives/old/release-0.{v}.zip"] = _zip({f"release-0.{v}/{k}": text[k] for k in picked})
    modes["notes/personal/journal-1.txt"] = 0o444
    decisions = sorted(k for k in text if k.startswith("docs/architecture/decisions/"))
    links = {
        "docs/latest-decision.md": "architecture/decisions/" + decisions[-1].rsplit("/", 1)[1],
        "logs/current.log": "app-5.log",
    }
    draft = rng.choice(topics)
    trash: dict[str, dict[str, bytes]] = {
        f"notes/draft-{draft}-plan.md": {"": _markdown(rng, f"{draft.capitalize()} plan (draft)", 1).encode()},
        "tmp/old-exports": {f"{t}_export.csv": _csv(rng, t, rng.randint(3, 6)).encode() for t in rng.sample(topics, 2)},
    }
    return _Tree(files, modes, ["build", "tmp/cache", "data/incoming"], links, trash)


def seed_tree(root: Path, seed: int) -> None:
    """Fill an empty folder with a deterministic, project-like tree.

    Args:
        root: The folder to fill; created when missing, and it must be empty.
        seed: Integer seed: the same seed gives the same tree (names, contents, modes).

    Raises:
        ValueError: ``root`` holds something already.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise ValueError(f"seed_tree fills an empty folder; {root} is not empty")
    tree = _tree(random.Random(seed))
    files = dict(tree.files)
    index: dict[str, dict[str, Any]] = {}
    for number, (original, members) in enumerate(tree.trash.items(), 1):
        item = f"{TRASH}/T{number}"
        for member, body in members.items():
            files[f"{item}/{member}" if member else item] = body
        kind = "file" if list(members) == [""] else "folder"
        index[f"T{number}"] = {"path": original, "type": kind, "size": sum(len(b) for b in members.values())}
    files[f"{TRASH}/index.json"] = json.dumps(index, indent=1, sort_keys=True).encode()
    folders = {str(Path(p).parent) for p in files} | set(tree.empty)
    for folder in sorted(folders - {"."}):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for dirpath, _dirs, _files in os.walk(root):
        if dirpath != str(root):
            os.chmod(dirpath, 0o755)
    for name in sorted(files):
        path = root / name
        path.write_bytes(files[name])
        os.chmod(path, tree.modes.get(name, 0o644))
    for name, target in sorted(tree.links.items()):
        os.symlink(target, root / name)
