"""``gym-mcp envs add|check|list|remove``: environments over third-party servers, from spec files."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal

from gym_mcp.cli.args import Parser
from gym_mcp.errors import ConfigError
from gym_mcp.specs import ServerSpec

__all__ = ["probe", "register"]


def register(sub: Any) -> None:
    """Add ``envs`` to the ``gym-mcp`` subparsers."""
    envs = sub.add_parser("envs", help="environments over third-party servers, from spec files")
    envs_sub = envs.add_subparsers(dest="envs_command", required=True, parser_class=Parser)
    add = envs_sub.add_parser("add", help="check a spec file (starts the server once) and save it")
    add.add_argument("spec", help="a .toml, .json or .yaml server spec")
    add.add_argument("--force", action="store_true", help="replace a saved spec of the same name")
    add.set_defaults(run=_add)
    check = envs_sub.add_parser(
        "check",
        help="check that a reset really resets the server: one write on a copy of its state, a reset, and its "
        "read tools compared with a fresh start (status 1 when it keeps state in memory)",
    )
    check.add_argument("spec", help="a .toml, .json or .yaml server spec")
    check.set_defaults(run=_check)
    envs_sub.add_parser("list", help="saved specs and their environment ids").set_defaults(run=_list)
    remove = envs_sub.add_parser("remove", help="forget a saved spec")
    remove.add_argument("name", help="server name of the saved spec")
    remove.set_defaults(run=_remove)


def _list(args: argparse.Namespace) -> int:
    from gym_mcp.specs import env_name, saved_specs, specs_dir

    specs = saved_specs()
    if not specs:
        print(f"no saved specs (in {specs_dir()}); add one with: gym-mcp envs add SPEC")
    for name, path in specs.items():
        print(f"{name:<20} {env_name(name):<32} {path}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from gym_mcp.specs import saved_specs

    saved = saved_specs().get(args.name)
    if saved is None:
        raise ConfigError(f"no saved spec named {args.name!r}")
    saved.unlink()
    print(f"removed {args.name}")
    return 0


def _add(args: argparse.Namespace) -> int:
    from gym_mcp import env_id
    from gym_mcp.servers import BUNDLED
    from gym_mcp.specs import env_name, load_spec, specs_dir

    spec = load_spec(args.spec)
    taken = {env_id(name): name for name in BUNDLED}
    if env_name(spec.name) in taken:
        raise ConfigError(
            f"{args.spec}: name {spec.name!r} would register {env_name(spec.name)}, the bundled "
            f"{taken[env_name(spec.name)]} server's id; give the spec another name, e.g. 'my-{spec.name}'"
        )
    target = specs_dir() / f"{spec.name}.json"
    if target.exists() and not args.force:
        raise ConfigError(f"a spec named {spec.name!r} is already saved ({target}); use --force to replace it")
    tools = probe(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(spec.to_dict(), indent=2) + "\n")
    print(f"saved {spec.name}: {len(tools)} tools; gym.make({env_name(spec.name)!r}) after `import gym_mcp`")
    if spec.state_kind != "none" and spec.command:  # a write on a copy of the declared state only
        _report_check(spec, on_failure="warn")
    return 0


def _check(args: argparse.Namespace) -> int:
    from gym_mcp.specs import load_spec

    return _report_check(load_spec(args.spec), on_failure="status")


def _report_check(spec: ServerSpec, *, on_failure: Literal["status", "warn"]) -> int:
    """Run the reset check on ``spec`` and say what it found.

    Args:
        spec: The spec.
        on_failure: ``"status"``: print the finding and return 1 (``envs check``); ``"warn"``:
            emit the `InMemoryStateWarning` and return 0 (``envs add``: the spec is saved anyway).

    Returns:
        The exit status.
    """
    from gym_mcp.synth.statecheck import check_reset

    found = check_reset(spec, warn=on_failure == "warn")
    if found.differing and on_failure == "status":
        print(f"gym-mcp: {found.message()}", file=sys.stderr)
        return 1
    if not found.differing:
        print(found.message())
        for tool, why in sorted(found.skipped.items()):
            print(f"  not compared: {tool}: {why}")
    return 0


def probe(spec: ServerSpec) -> list[str]:
    """Start the spec's server once on a copy of its state and list its tools.

    Raises:
        ConfigError: A tool to hide or rename is not offered by the server.
    """
    from gym_mcp.live import spec_source
    from gym_mcp.transport.runner import run_sync

    async def go() -> list[str]:
        live = await spec_source(spec).launch(call_timeout=30.0)
        try:
            return [t.name for t in live.tools]
        finally:
            await live.close()

    tools = run_sync(go())
    missing = sorted((set(spec.hide_tools) | set(spec.rename_tools)) - set(tools))
    if missing:
        raise ConfigError(f"{spec.name}: tools to hide or rename are not offered by the server: {', '.join(missing)}")
    return tools
