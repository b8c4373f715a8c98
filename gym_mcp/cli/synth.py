"""``gym-mcp synth``: replay-verified tasks grown from a server's live state."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gym_mcp.cli.args import chain_length, output_file, task_count
from gym_mcp.errors import ConfigError

if TYPE_CHECKING:
    from gym_mcp.specs import ServerSpec

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``synth`` to the ``gym-mcp`` subparsers."""
    synth = sub.add_parser("synth", help="synthesize replay-verified tasks from a server's live state")
    synth.add_argument("server", nargs="?", help="bundled server name (or use --spec)")
    synth.add_argument(
        "--spec",
        help="a third-party server spec file (SQLite state for entities); its [tools] rules apply: hidden tools "
        "are never called, renamed ones are called by their new names, as in External-v0 with that spec",
    )
    synth.add_argument("-n", type=task_count, default=500, help="tasks to produce, 1-1,000,000 (default 500)")
    synth.add_argument(
        "-o", "--output", type=output_file, required=True, help="output JSONL (a .report.txt/.png is written beside)"
    )
    synth.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    synth.add_argument("--data-seed", type=int, default=0, help="server data seed the tasks start from")
    synth.add_argument("--max-chain", type=chain_length, default=5, help="longest call chain, 1-5 (default 5)")
    synth.add_argument(
        "--no-heldout-tools",
        action="store_true",
        help="hold out entities only, so every tool is in the train split (default: some whole tools are test-only)",
    )
    synth.add_argument(
        "--nondeterministic",
        choices=("volatile", "refuse"),
        default="volatile",
        help="when two replays of a task reach different states (minted ids, timestamps): leave those columns "
        "out of the fingerprints and print the [state] lines for the spec (volatile, the default), or refuse the task",
    )
    synth.add_argument(
        "--dialogue",
        action="store_true",
        help="dialogue tasks for a simulated user: missing values, staged requests, changes of mind, confirmations",
    )
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    synth.add_argument(
        "--llm",
        metavar="URL",
        help="optional OpenAI-compatible endpoint (…/v1) that labels the tools without gym_mcp metadata (kinds, "
        "request templates, pools) over the rules' guesses; its answers are kept in a labels file beside the spec "
        "(server.labels.json), so a rerun asks it nothing",
    )
    synth.add_argument("--llm-url", help="optional OpenAI-compatible endpoint (…/v1) that paraphrases instructions")
    synth.add_argument("--llm-model", default="default", help="model name for --llm and --llm-url")
    synth.set_defaults(run=_synth)


def _synth(args: argparse.Namespace) -> int:
    from gym_mcp.live.live_server import ServerSource
    from gym_mcp.live.sources import bundled_source
    from gym_mcp.progress import progress_bar
    from gym_mcp.specs import ServerSpec, load_spec
    from gym_mcp.synth.graph import cache_dir
    from gym_mcp.synth.labels import ToolLabeler, labels_file
    from gym_mcp.synth.llm import ChatEndpoint
    from gym_mcp.synth.pipeline import SynthConfig, synthesize, write_outputs
    from gym_mcp.synth.report import tool_error_lines

    if bool(args.server) == bool(args.spec):
        raise ConfigError("give a bundled server name or --spec FILE (one of them)")
    # an unknown server name or a bad spec file fails here, before anything runs; a spec goes to
    # synthesize whole, so that its [tools] rules shape the tasks as they shape its environment
    target: ServerSpec | ServerSource = load_spec(args.spec) if args.spec else bundled_source(args.server)
    config = (SynthConfig.dialogue if args.dialogue else SynthConfig)(
        n=args.n,
        seed=args.seed,
        data_seed=args.data_seed,
        max_chain=args.max_chain,
        heldout_tools=not args.no_heldout_tools,
        nondeterministic=args.nondeterministic,
    )
    rules = _tool_rules(target) if isinstance(target, ServerSpec) else ""
    print(f"synthesizing {args.n} tasks for {target.name} (seed {args.seed}{rules})", file=sys.stderr, flush=True)
    llm = ChatEndpoint(args.llm_url, args.llm_model) if args.llm_url else None
    labeler = None
    if args.llm:
        spec_file = target.source_file if isinstance(target, ServerSpec) else None
        path = labels_file(spec_file, target.name, cache_dir().parent)
        labeler = ToolLabeler(ChatEndpoint(args.llm, args.llm_model), path)
    progress = None if args.quiet else progress_bar("synthesizing", "tasks")
    result = synthesize(target, config, progress=progress, llm=llm, labeler=labeler)
    if labeler is not None:
        asked = f"{len(labeler.asked)} asked of the LLM" if labeler.asked else "all from the file"
        print(f"tool labels: {labeler.path} ({asked})", file=sys.stderr)
    files = write_outputs(result, args.output)
    stats = result.stats
    print(
        f"{stats['tasks']} verified tasks -> {files[0]}; unique call sequences {stats['unique_call_sequences']:.1%}, "
        f"tool coverage {stats['tool_coverage']:.1%}, {stats['verified_tasks_per_minute']} tasks/min; "
        f"report: {', '.join(str(f) for f in files[1:])}"
    )
    for line in tool_error_lines(stats, tools=5):  # which tools' errors cost most candidates, and why
        print(line)
    return 0


def _tool_rules(spec: ServerSpec) -> str:
    """``"; hidden: a, b; renamed: c -> d"`` for a spec's ``[tools]`` rules (empty without any)."""
    parts = []
    if spec.hide_tools:
        parts.append(f"hidden: {', '.join(spec.hide_tools)}")
    if spec.rename_tools:
        parts.append(f"renamed: {', '.join(f'{old} -> {new}' for old, new in spec.rename_tools.items())}")
    return "".join(f"; {part}" for part in parts)
