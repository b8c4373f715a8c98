"""``gym-mcp eval``: score policies on task sets or on BFCL v3 multi-turn."""

from __future__ import annotations

import argparse
import os
from typing import Any

from gym_mcp.cli.args import positive
from gym_mcp.errors import ConfigError

__all__ = ["BFCL_SUITE", "REWARDS", "register"]

BFCL_SUITE = "bfcl-multi-turn"
REWARDS = ("state", "prove", "mua_rl", "grounded")


def register(sub: Any) -> None:
    """Add ``eval`` to the ``gym-mcp`` subparsers."""
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
    ev.add_argument("--limit", type=positive, default=None, help="only the first N entries of each category")
    ev.add_argument(
        "--policy",
        action="append",
        required=True,
        help="reference, noop, random, openai:URL or local:MODEL[+ADAPTER_DIR] (repeatable); MODEL is a model "
        "folder, a .gguf file or smollm2; openai: sends $OPENAI_API_KEY, when set, as its bearer token",
    )
    ev.add_argument("--model", default="default", help="model name for openai: policies")
    ev.add_argument("-k", type=positive, default=1, help="trials per task (pass^k)")
    ev.add_argument("--concurrency", type=positive, default=1, help="episodes at once")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--max-steps", type=positive, default=None, help="steps per episode (default 20; BFCL: none)")
    ev.add_argument("--transport", choices=["inprocess", "stdio", "http"], default=None, help="for bundled envs")
    ev.add_argument(
        "--reward",
        choices=list(REWARDS),
        default="prove",
        help="episode reward: final-state match, PROVE's composite (default), MUA-RL's binary success, or "
        "grounded (success picks the band, [0.5, 1] or [0, 0.45], PROVE's terms shape it)",
    )
    ev.add_argument(
        "--user",
        default=None,
        help="a simulated user: scripted, or openai:URL[@MODEL] (an LLM user; sends $OPENAI_API_KEY, when set, "
        "as its bearer token); each failure is attributed to it or to the agent",
    )
    ev.add_argument(
        "--perturb",
        default=None,
        metavar="MIX",
        help="also run every episode under a perturbation mix (transient, static, transition, all, one family, "
        "or a .toml file) and report it beside the clean one, per family and kind",
    )
    ev.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the episodes on Ray workers (needs [ray]): a local Ray instance, or the cluster at ADDRESS "
        "(ray://HEAD:10001); --concurrency is then episodes at once per worker",
    )
    ev.add_argument("--workers", type=positive, default=2, help="Ray workers with --ray (default 2)")
    ev.add_argument("-o", "--output", default="runs/eval", help="output folder (results.json/.md/.png)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(run=_eval)


def _check_args(args: argparse.Namespace) -> None:
    if args.suite and (args.env or args.tasks):
        raise ConfigError("give either --suite or --env/--tasks, not both")
    if not args.suite and not args.env:
        raise ConfigError("give --env and --tasks (or --suite bfcl-multi-turn)")
    if (args.category or args.limit) and not args.suite:
        raise ConfigError("--category and --limit go with --suite")
    if len(args.env) != len(args.tasks):
        raise ConfigError("give one --tasks file per --env, in the same order")
    if args.workers != 2 and args.ray is None:
        raise ConfigError("--workers goes with --ray")
    if args.user and args.suite:
        raise ConfigError("--user goes with --env/--tasks (BFCL keeps its own scripted turns)")


def _eval(args: argparse.Namespace) -> int:
    from gym_mcp.evaluation import EvalConfig, evaluate, unscorable_note, write_report
    from gym_mcp.evaluation.report import fixed
    from gym_mcp.policies import OpenAIPolicy, make_policy
    from gym_mcp.progress import progress_bar

    _check_args(args)
    api_key = os.environ.get("OPENAI_API_KEY") or None  # for openai: policies and users, as synth --llm-url
    for spec in args.policy:
        probe = make_policy(spec, seed=args.seed, model=args.model, api_key=api_key)  # unknown specs fail here
        if isinstance(probe, OpenAIPolicy):
            probe.check()  # an unreachable endpoint fails here, with one line
        probe.close()
    policies = {
        spec: (lambda spec=spec: make_policy(spec, seed=args.seed, model=args.model, api_key=api_key))
        for spec in args.policy
    }
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
        if args.user:
            from gym_mcp.users import LLMUser, make_user

            user = make_user(args.user, api_key=api_key)  # a bad spec fails here, with one line
            if isinstance(user, LLMUser):
                user.chat.check()  # an unreachable endpoint fails here
            env_kwargs["user"] = user
        if args.reward != "state":
            env_kwargs["reward"] = {
                "prove": CompositeReward.prove,
                "mua_rl": CompositeReward.mua_rl,
                "grounded": CompositeReward.grounded,
            }[args.reward]()
    config = EvalConfig(k=args.k, concurrency=args.concurrency, seed=args.seed, max_steps=max_steps)
    perturbed, label = None, ""
    if args.perturb is not None:  # an unknown mix fails here, before any episode
        from gym_mcp.wrappers import mix

        label = mix(args.perturb).name
        perturbed = EvalConfig(
            k=args.k, concurrency=args.concurrency, seed=args.seed, max_steps=max_steps, perturb=args.perturb
        )
    workers = None
    if args.ray is not None:
        from gym_mcp.ray import WorkerPool

        transport = {"transport": args.transport} if args.transport and not args.suite else {}
        warm = [(env_id, transport) for env_id, _ in runs]  # each worker starts these servers at once
        workers = WorkerPool(args.workers, address=None if args.ray == "local" else args.ray, warm=warm)
    progress = None if args.quiet else progress_bar("evaluating", "episodes")
    try:
        result = evaluate(runs, policies, config, env_kwargs=env_kwargs, progress=progress, workers=workers)
        extra = None
        if perturbed is not None:  # the same episodes under the mix, as policies "NAME [MIX]" beside the clean ones
            extra = evaluate(runs, policies, perturbed, env_kwargs=env_kwargs, progress=progress, workers=workers)
    finally:
        if workers is not None:
            workers.close()
    for lost in workers.lost if workers is not None else []:
        print(
            f"ray worker {lost['worker']} (pid {lost.get('pid')} on {lost.get('host')}) died: {lost['error']}; "
            f"{len(lost['rerun'])} episode(s) rerun on other workers"
        )
    if extra is not None:
        for episode in extra.episodes:
            episode["policy"] = f"{episode['policy']} [{label}]"
        result.episodes.extend(extra.episodes)
        result.metrics.update({f"{name} [{label}]": m for name, m in extra.metrics.items()})
    files = write_report(result, args.output, config)
    notes: dict[str, str] = {}
    for policy, envs in result.metrics.items():
        for env_id, m in envs.items():
            print(
                f"{policy:<12} {env_id:<24} success {_percent(m['success_rate'])}  pass^{args.k} "
                f"{_percent(m['pass^k'][str(args.k)])}  mean reward {fixed(m['mean_reward'])}"
            )
            if "failures" in m:
                f = m["failures"]
                print(
                    f"{'':<12} failures: agent {f['agent']}, user {f['user']}; success without the user's failures "
                    f"{_percent(m['success_rate_excluding_user_failures'])}; ask rate {_percent(m['ask_rate'])}"
                )
            if args.suite or "failures" in m:
                for variant, b in m["by_variant"].items():
                    print(f"{'':<12} {variant:<24} success {_percent(b['success_rate'])}  ({b['episodes']} entries)")
            note = unscorable_note(env_id, m)
            if note:
                notes.setdefault(env_id, note)
    for note in notes.values():
        print(note)
    print("wrote " + ", ".join(str(f) for f in files))
    return 0


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"
