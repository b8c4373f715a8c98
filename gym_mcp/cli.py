"""The ``gym-mcp`` command line.

::

    gym-mcp servers list                                  bundled servers and their tool counts
    gym-mcp serve banking --transport http --port 8000    a live server for any MCP client
    gym-mcp serve-bfcl multi_turn_base_0                  one BFCL entry's backends, for any MCP client
    gym-mcp envs add spec.toml                            check and save a third-party server spec
    gym-mcp synth banking -n 500 -o banking.jsonl         synthesize replay-verified tasks
    gym-mcp eval --env gym_mcp/Banking-v0 --tasks banking.jsonl --policy reference --policy random
    gym-mcp eval --suite bfcl-multi-turn --category base --policy openai:URL   BFCL v3 multi-turn
    gym-mcp train                                         the default run: SmolLM2 learns banking tasks
    gym-mcp train --config examples/train_cpu.toml        a configured run (SFT, then GRPO)
    gym-mcp demo --server banking --episodes 3            a scripted agent plays a few episodes

A bad argument gets one line on stderr saying what is wrong, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from gym_mcp.errors import ConfigError, GymMCPError

if TYPE_CHECKING:
    from gym_mcp.spec import ServerSpec

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``gym-mcp: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    from gym_mcp.servers import BUNDLED

    parser = _Parser(prog="gym-mcp", description="Gymnasium environments over live MCP servers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    servers = sub.add_parser("servers", help="bundled servers")
    servers_sub = servers.add_subparsers(dest="servers_command", required=True, parser_class=_Parser)
    servers_sub.add_parser("list", help="list bundled servers and their tool counts")

    serve = sub.add_parser("serve", help="run a bundled server for any MCP client")
    serve.add_argument("name", choices=sorted(BUNDLED), help="bundled server name")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000)")
    serve.add_argument("--db", default=None, help="SQLAlchemy database URL (default: a file named after the server)")
    serve.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database")

    sb = sub.add_parser("serve-bfcl", help="serve one BFCL multi-turn entry's backends for any MCP client ([bfcl])")
    sb.add_argument("entry", help="entry id, e.g. multi_turn_base_0")
    sb.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    sb.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    sb.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000)")

    envs = sub.add_parser("envs", help="environments over third-party servers, from spec files")
    envs_sub = envs.add_subparsers(dest="envs_command", required=True, parser_class=_Parser)
    add = envs_sub.add_parser("add", help="check a spec file (starts the server once) and save it")
    add.add_argument("spec", help="a .toml, .json or .yaml server spec")
    add.add_argument("--force", action="store_true", help="replace a saved spec of the same name")
    envs_sub.add_parser("list", help="saved specs and their environment ids")
    remove = envs_sub.add_parser("remove", help="forget a saved spec")
    remove.add_argument("name", help="server name of the saved spec")

    synth = sub.add_parser("synth", help="synthesize replay-verified tasks from a server's live state")
    synth.add_argument("server", nargs="?", help="bundled server name (or use --spec)")
    synth.add_argument("--spec", help="a third-party server spec file (SQLite state for entities)")
    synth.add_argument("-n", type=_positive, default=500, help="tasks to produce (default 500)")
    synth.add_argument("-o", "--output", required=True, help="output JSONL (a .report.txt/.png is written beside)")
    synth.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    synth.add_argument("--data-seed", type=int, default=0, help="server data seed the tasks start from")
    synth.add_argument("--max-chain", type=_chain, default=5, help="longest call chain, 1-5 (default 5)")
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    synth.add_argument("--llm-url", help="optional OpenAI-compatible endpoint (…/v1) that paraphrases instructions")
    synth.add_argument("--llm-model", default="default", help="model name for --llm-url")

    ev = sub.add_parser("eval", help="score policies on task sets (success, pass^k, reward terms)")
    ev.add_argument("--env", action="append", default=[], help="environment id (repeat with --tasks)")
    ev.add_argument("--tasks", action="append", default=[], help="task JSONL for the --env at the same position")
    ev.add_argument(
        "--suite",
        choices=[BFCL_SUITE],
        default=None,
        help="a benchmark instead of --env/--tasks: BFCL v3 multi-turn, scored by BFCL's checker (needs [bfcl])",
    )
    ev.add_argument(
        "--category",
        action="append",
        choices=["base", "miss_func", "miss_param", "long_context"],
        default=None,
        help="BFCL categories (repeatable; default all four)",
    )
    ev.add_argument("--limit", type=_positive, default=None, help="only the first N entries of each category")
    ev.add_argument(
        "--policy",
        action="append",
        required=True,
        help="reference, noop, random, openai:URL or local:MODEL_DIR[+ADAPTER_DIR] (repeatable)",
    )
    ev.add_argument("--model", default="default", help="model name for openai: policies")
    ev.add_argument("-k", type=_positive, default=1, help="trials per task (pass^k)")
    ev.add_argument("--concurrency", type=_positive, default=1, help="episodes at once")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--max-steps", type=_positive, default=None, help="steps per episode (default 20; BFCL: none)")
    ev.add_argument("--transport", choices=["inprocess", "stdio", "http"], default=None, help="for bundled envs")
    ev.add_argument(
        "--reward",
        choices=["state", "prove", "mua_rl"],
        default="prove",
        help="episode reward: final-state match, PROVE's composite (default) or MUA-RL's binary success",
    )
    ev.add_argument("-o", "--output", default="runs/eval", help="output folder (results.json/.md/.png)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")

    sm = sub.add_parser("serve-model", help="an OpenAI-compatible chat server over a local model (+ adapter)")
    sm.add_argument("--model", required=True, help="local model folder (save_pretrained output)")
    sm.add_argument("--adapter", default=None, help="PEFT adapter folder to apply")
    sm.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    sm.add_argument("--port", type=_port, default=8000, help="port (default 8000)")

    tr = sub.add_parser(
        "train",
        help="LoRA training: evaluate, SFT warm start, GRPO, evaluate again (needs the [train] extra)",
    )
    tr.add_argument("--config", default=None, help="a TOML config (default: the embedded default run)")
    tr.add_argument("--output-dir", default=None, help="where results go (overrides the config)")

    demo = sub.add_parser("demo", help="a scripted agent plays episodes of a bundled environment")
    demo.add_argument("--server", choices=sorted(BUNDLED), default="banking", help="bundled server")
    demo.add_argument("--transport", choices=["inprocess", "stdio", "http"], default="stdio")
    demo.add_argument("--episodes", type=_positive, default=3, help="episodes to play")
    return parser


def _chain(text: str) -> int:
    value = _int(text)
    if not 1 <= value <= 5:
        raise argparse.ArgumentTypeError(f"must be 1-5, got {value}")
    return value


def _port(text: str) -> int:
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 1-65535, got {value}")
    return value


def _positive(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _servers_list() -> int:
    from gym_mcp.servers import BUNDLED, get_kit

    rows = []
    for name in sorted(BUNDLED):
        kit = get_kit(name)
        writes = sum(1 for t in kit.tools.values() if t.write)
        rows.append((name, len(kit.tools), writes))
    print(f"{'server':<12}{'tools':>6}{'write':>7}  env id")
    from gym_mcp import env_id

    for name, n, w in rows:
        print(f"{name:<12}{n:>6}{w:>7}  {env_id(name)}")
    return 0


def _envs(args: argparse.Namespace) -> int:
    import json

    from gym_mcp.spec import env_name, load_spec, saved_specs, specs_dir

    if args.envs_command == "list":
        specs = saved_specs()
        if not specs:
            print(f"no saved specs (in {specs_dir()}); add one with: gym-mcp envs add SPEC")
        for name, path in specs.items():
            print(f"{name:<20} {env_name(name):<32} {path}")
        return 0
    if args.envs_command == "remove":
        saved = saved_specs().get(args.name)
        if saved is None:
            raise ConfigError(f"no saved spec named {args.name!r}")
        saved.unlink()
        print(f"removed {args.name}")
        return 0
    spec = load_spec(args.spec)
    target = specs_dir() / f"{spec.name}.json"
    if target.exists() and not args.force:
        raise ConfigError(f"a spec named {spec.name!r} is already saved ({target}); use --force to replace it")
    tools = _probe(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(spec.to_dict(), indent=2) + "\n")
    print(f"saved {spec.name}: {len(tools)} tools; gym.make({env_name(spec.name)!r}) after `import gym_mcp`")
    return 0


def _synth(args: argparse.Namespace) -> int:
    from gym_mcp._live import BundledSource, ServerSource
    from gym_mcp.servers import get_kit
    from gym_mcp.spec import load_spec
    from gym_mcp.synth.pipeline import SynthConfig, progress_bar, synthesize, write_outputs

    if bool(args.server) == bool(args.spec):
        raise ConfigError("give a bundled server name or --spec FILE (one of them)")
    source: ServerSource
    if args.spec:
        source = load_spec(args.spec).source()
    else:
        get_kit(args.server)  # an unknown name fails here, before anything runs
        source = BundledSource(args.server)
    config = SynthConfig(n=args.n, seed=args.seed, data_seed=args.data_seed, max_chain=args.max_chain)
    print(f"synthesizing {args.n} tasks for {source.name} (seed {args.seed})", file=sys.stderr, flush=True)
    from gym_mcp.synth.llm import ChatEndpoint

    llm = ChatEndpoint(args.llm_url, args.llm_model) if args.llm_url else None
    result = synthesize(source, config, progress=None if args.quiet else progress_bar(), llm=llm)
    files = write_outputs(result, args.output)
    stats = result.stats
    print(
        f"{stats['tasks']} verified tasks -> {files[0]}; unique call sequences {stats['unique_call_sequences']:.1%}, "
        f"tool coverage {stats['tool_coverage']:.1%}, {stats['verified_tasks_per_minute']} tasks/min; "
        f"report: {', '.join(str(f) for f in files[1:])}"
    )
    return 0


BFCL_SUITE = "bfcl-multi-turn"


def _eval(args: argparse.Namespace) -> int:
    from gym_mcp.evaluate import EvalConfig, evaluate, progress_bar, write_report
    from gym_mcp.policies import OpenAIPolicy, make_policy

    if args.suite and (args.env or args.tasks):
        raise ConfigError("give either --suite or --env/--tasks, not both")
    if not args.suite and not args.env:
        raise ConfigError("give --env and --tasks (or --suite bfcl-multi-turn)")
    if (args.category or args.limit) and not args.suite:
        raise ConfigError("--category and --limit go with --suite")
    if len(args.env) != len(args.tasks):
        raise ConfigError("give one --tasks file per --env, in the same order")
    for spec in args.policy:
        probe = make_policy(spec, seed=args.seed, model=args.model)  # unknown specs fail here
        if isinstance(probe, OpenAIPolicy):
            probe.check()  # an unreachable endpoint fails here, with one line
        probe.close()
    policies = {spec: (lambda spec=spec: make_policy(spec, seed=args.seed, model=args.model)) for spec in args.policy}
    if args.suite == BFCL_SUITE:
        from gym_mcp.bfcl import bfcl_tasks

        categories = args.category or ["base", "miss_func", "miss_param", "long_context"]
        suite_tasks = [t for category in categories for t in bfcl_tasks(category, limit=args.limit)]
        runs: list[tuple[str, Any]] = [("gym_mcp/BFCL-MultiTurn-v0", suite_tasks)]
        max_steps = args.max_steps or 10_000  # BFCL limits steps per turn (20), not per episode
        env_kwargs: dict[str, object] = {}
    else:
        from gym_mcp.rewards import CompositeReward

        runs = list(zip(args.env, args.tasks, strict=True))
        max_steps = args.max_steps or 20
        env_kwargs = {"transport": args.transport} if args.transport else {}
        if args.reward != "state":
            env_kwargs["reward"] = CompositeReward.prove() if args.reward == "prove" else CompositeReward.mua_rl()
    config = EvalConfig(k=args.k, concurrency=args.concurrency, seed=args.seed, max_steps=max_steps)
    result = evaluate(
        runs,
        policies,
        config,
        env_kwargs=env_kwargs,
        progress=None if args.quiet else progress_bar(),
    )
    files = write_report(result, args.output, config)
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            print(
                f"{policy:<12} {env_id:<24} success {m['success_rate']:.1%}  pass^{args.k} "
                f"{m['pass^k'][str(args.k)]:.1%}  mean reward {m['mean_reward']:.3f}"
            )
            if args.suite:
                for variant, b in m["by_variant"].items():
                    print(f"{'':<12} {variant:<24} success {b['success_rate']:.1%}  ({b['episodes']} entries)")
    print("wrote " + ", ".join(str(f) for f in files))
    return 0


def _probe(spec: ServerSpec) -> list[str]:
    """Start the spec's server once on a copy of its state and list its tools."""
    from gym_mcp._runner import run_sync

    async def go() -> list[str]:
        live = await spec.source().launch(call_timeout=30.0)
        try:
            return [t.name for t in live.tools]
        finally:
            await live.close()

    tools = run_sync(go())
    missing = sorted((set(spec.hide_tools) | set(spec.rename_tools)) - set(tools))
    if missing:
        raise ConfigError(f"{spec.name}: tools to hide or rename are not offered by the server: {', '.join(missing)}")
    return tools


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: Arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "servers":
            return _servers_list()
        if args.command == "serve":
            from gym_mcp.servers import get_kit

            return get_kit(args.name).serve(
                transport=args.transport, db=args.db, seed=args.seed, host=args.host, port=args.port
            )
        if args.command == "serve-bfcl":
            from gym_mcp.bfcl import run_entry_server

            return run_entry_server(args.entry, transport=args.transport, host=args.host, port=args.port)
        if args.command == "envs":
            return _envs(args)
        if args.command == "synth":
            return _synth(args)
        if args.command == "eval":
            return _eval(args)
        if args.command == "train":
            from gym_mcp.train.trainer import TrainConfig, summary_table, train

            config = TrainConfig.from_toml(args.config) if args.config else TrainConfig()
            if args.output_dir:
                config = replace(config, output_dir=args.output_dir)
            start = time.perf_counter()
            result = train(config)
            print(summary_table(result["before"], result["after"]))
            print(
                f"done in {time.perf_counter() - start:.0f}s; adapter, metrics, evaluations and "
                f"training.png in {config.output_dir}"
            )
            return 0
        if args.command == "serve-model":
            from gym_mcp.local_model import LocalModel, serve_model

            model = LocalModel(args.model, adapter=args.adapter)
            print(f"serving {model.name} at http://{args.host}:{args.port}/v1", file=sys.stderr, flush=True)
            serve_model(model, host=args.host, port=args.port)
            return 0
        if args.command == "demo":
            from gym_mcp.demo import run_demo

            return run_demo(server=args.server, transport=args.transport, episodes=args.episodes)
    except GymMCPError as exc:
        print(f"gym-mcp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
