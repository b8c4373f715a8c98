"""The built wheel installs into a fresh venv and exposes gym_mcp.servers / .synth / .train."""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_imports_in_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = dist.glob("gym_mcp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "gym_mcp/servers/banking/tools/__init__.py" in names
    # every package of the source trees is in the wheel (pyproject lists them one by one)
    trees = {"gym_mcp": "gym_mcp", "servers": "gym_mcp/servers", "synth": "gym_mcp/synth", "train": "gym_mcp/train"}
    for src, dest in trees.items():
        for init in (ROOT / src).rglob("__init__.py"):
            rel = init.relative_to(ROOT / src).as_posix()
            assert f"{dest}/{rel}" in names, f"{src}/{rel} is not in the wheel: add its package to pyproject.toml"
    assert "gym_mcp/synth/__init__.py" in names
    assert "gym_mcp/train/__init__.py" in names
    assert "gym_mcp/py.typed" in names
    assert not any(n.startswith(("servers/", "synth/", "train/", "tests/")) for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True)
    # Dependencies come from this environment's site-packages, added as a plain path entry (its .pth
    # files, including the editable install's import hook, are NOT processed), so gym_mcp can only
    # come from the wheel.
    fresh_site = Path(
        subprocess.check_output(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    deps = sysconfig.get_paths()["purelib"]
    (fresh_site / "zz_deps.pth").write_text(deps + "\n" + "\n".join(site.getsitepackages()) + "\n")
    code = (
        "import gym_mcp, gym_mcp.servers, gym_mcp.synth, gym_mcp.train, gymnasium as gym\n"
        "import importlib.util as u\n"
        "assert u.find_spec('servers') is None and u.find_spec('train') is None and u.find_spec('synth') is None\n"
        "from gym_mcp.servers.banking import kit\n"
        "env = gym.make('gym_mcp/Banking-v0', transport='stdio')\n"
        "obs, info = env.reset(seed=0)\n"
        "obs, *_ = env.step({'name': 'get_balance', 'arguments': {'account_id': 'ACC-1001'}})\n"
        "assert 'ACC-1001' in obs, obs\n"
        "env.close()\n"
        "print(gym_mcp.__file__)\n"
    )
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(venv)), out.stdout
    cli = subprocess.run(
        [str(venv / "bin" / "gym-mcp"), "servers", "list"], capture_output=True, text=True, check=False
    )
    assert cli.returncode == 0, cli.stderr
    assert "banking" in cli.stdout
