"""The synthesis pipeline: live-state chains, rendered instructions, replay-verified tasks.

For one server: (1) read its tools and learn the tool graph; (2) draw entities from its state;
(3) sample chains of 1-5 calls along the graph and run them on the live server from the task's
initial snapshot, keeping a chain only if every call succeeds and every write changes state;
(4) render the instruction from the tools' intent templates (a value from an earlier output as a
reference only where exactly one earlier mention fits it, see `gym_mcp.synth.render`), checking
that every argument is traceable to the instruction or an earlier output; (5) label a variant;
(6) replay every kept task from a fresh reset and compare fingerprints, drop near-duplicates,
label difficulty and split train / held-out; (7) write JSONL and a report. Same seed, same bytes.

Synthesis sees the server's tools as the agent will: through the same `ToolView` an
environment holds (a spec file's ``[tools]`` rules, or ``hide_tools`` / ``rename_tools``). A
hidden tool is never called nor offered as a distractor, a renamed one is called by its new
name, and every call, replay included, goes through that view.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gym_mcp.actions.schema import openai_tools
from gym_mcp.env import MCPEnv
from gym_mcp.errors import ConfigError, SynthError
from gym_mcp.live import ComposedSource, CompositionSource, ExternalSource, ServerSource, bundled_source, spec_source
from gym_mcp.playback import replay
from gym_mcp.specs import ServerSpec, is_spec_file, load_spec
from gym_mcp.synth.arguments import ArgumentFiller
from gym_mcp.synth.chain import Chain
from gym_mcp.synth.config import IRRELEVANT_REQUESTS, SynthConfig, SynthResult
from gym_mcp.synth.dialogue import confirm_calls, dialogue, hide_param, scenario
from gym_mcp.synth.graph import ToolGraph, ToolSpec, cache_dir, kit_tools, schema_hash, shape, tool_specs
from gym_mcp.synth.hints import apply_hints, check_hints
from gym_mcp.synth.infer import infer_specs
from gym_mcp.synth.labels import ToolLabeler
from gym_mcp.synth.llm import ChatEndpoint
from gym_mcp.synth.pools import entity_pools
from gym_mcp.synth.proving import ProbeRejected, Prover
from gym_mcp.synth.render import Said, format_value, is_anchored, is_traceable, noun, render, render_chain
from gym_mcp.synth.report import error_cause, nondeterminism_lines, tool_error_causes
from gym_mcp.synth.statecheck import check_reset
from gym_mcp.synth.values import decode, jaccard, leaves
from gym_mcp.tasks import DIALOGUE_KINDS, Task, UserScenario, save_tasks
from gym_mcp.tasks.flows import dig

__all__ = ["SynthConfig", "SynthError", "SynthResult", "synthesize"]


ProgressFn = Callable[[int, int], None]
UNVERIFIABLE_AFTER = 20
"""Tries after which an inferred write tool that never changed visible state is no longer drawn."""


class _Synthesizer:
    def __init__(
        self,
        server: str,
        source: ServerSource,
        config: SynthConfig,
        progress: ProgressFn | None,
        llm: ChatEndpoint | None = None,
        *,
        hide_tools: Iterable[str] = (),
        rename_tools: Mapping[str, str] | None = None,
        tool_hints: Mapping[str, Mapping[str, Any]] | None = None,
        where: str = "spec",
        labeler: ToolLabeler | None = None,
        defer_clock_probes: bool = False,
    ) -> None:
        self.server = server
        self.llm = llm
        self.paraphrased = 0
        self.source = source
        self.config = config
        self.progress = progress
        self.rng = random.Random(config.seed)
        # The agent's view of the tools: every call, replay included, goes through it.
        self.hide_tools = frozenset(hide_tools)
        self.rename_tools = dict(rename_tools or {})
        self.env = MCPEnv(source, max_steps=1_000_000, hide_tools=self.hide_tools, rename_tools=self.rename_tools)
        self.dialogue_env: MCPEnv | None = None
        self.rejects: Counter[str] = Counter()
        # what the rejections for a tool error were: (tool, normalized message) -> candidates
        self.error_causes: Counter[tuple[str, str]] = Counter()
        self.repaired = 0
        self.timings: Counter[str] = Counter()
        parts = list(source.parts) if isinstance(source, ComposedSource) else []
        # every name the server lists (hidden and renamed ones too): never a distractor's name
        self.server_tools = set(self.env.server_tool_names)
        snapshot = source.initial_snapshot(config.data_seed)
        self.pools = entity_pools(source, snapshot)
        tools = list(self.env.mcp_tools.values())
        # Tools without gym_mcp/* metadata (any third-party server's): inferred by rules, then
        # the spec file's hints laid over, checked against the live tools first.
        self.specs, self.skipped = infer_specs(tools, tool_specs(tools, parts=parts), self.pools)
        # With an LLM (``--llm``), its labels next (asked once, kept in a labels file).
        self.labelled: list[str] = []
        self.labeler = labeler
        if labeler is not None:
            columns = {name: list(values) for name, values in self.pools.columns.items()}
            labels = labeler.label(tools, self.specs, columns)
            self.specs = apply_hints(self.specs, labels)
            self.labelled = sorted(labels)
        if tool_hints:
            server_name = {agent: name for name, agent in self.rename_tools.items()}
            schemas = {
                server_name.get(t.name, t.name): dict((t.input_schema or {}).get("properties") or {}) for t in tools
            }
            for tool in tool_hints:
                if tool in self.hide_tools:
                    raise ConfigError(
                        f"{where}: tools.hints.{tool}: the tool is hidden ([tools] hide), so no task uses it"
                    )
            check_hints(tool_hints, schemas, where)
            self.specs = apply_hints(self.specs, tool_hints, self.rename_tools)
        if tool_hints or self.labelled:
            self.skipped = {
                k: v for k, v in self.skipped.items() if not any(s.name == k and s.intent for s in self.specs)
            }
        self.by_name = {s.name: s for s in self.specs}
        self.usable = [s for s in self.specs if s.intent]
        if not any(s.write for s in self.usable):
            skipped = "; ".join(f"{k}: {v}" for k, v in sorted(self.skipped.items())[:5])
            raise SynthError(
                f"{server}: no write tools with an intent template; synthesis needs tools that change state"
                + (f" (skipped: {skipped}; give [tools.hints.<tool>] in the spec)" if skipped else "")
            )
        if self.pools.empty and snapshot.kind in ("sqlite", "directory", "composite"):
            raise SynthError(f"{server}: the seed state (data seed {config.data_seed}) holds no entities")
        self.base_task = Task(id="synth", server=server, instruction="synth", initial_state={"seed": config.data_seed})
        self.fp0 = ""
        # Replays every kept task; finds what a server mints (`gym_mcp.synth.proving`).
        self.prover = Prover(
            self.env,
            nondeterministic=config.nondeterministic,
            rejects=self.rejects,
            initial_fingerprint=lambda: self.fp0,
            dialogue_completes=self._dialogue_completes,
            defer_clock_probes=defer_clock_probes,
        )
        # A composition's bridges: values that flow from one part's output into another's call.
        # Its tools are named as the agent sees them; a bridge from or into a hidden tool is dropped.
        bridges = source.composition.bridges if isinstance(source, CompositionSource) else ()
        named = self._agent_name
        seen = [dataclasses.replace(b, source=named(b.source), target=named(b.target)) for b in bridges]
        self.bridges = [
            b for b in seen if b.source in self.by_name and b.target in self.by_name and self.by_name[b.target].intent
        ]
        self.filler = ArgumentFiller(self.pools, self.bridges, config.optional_rate)
        self.graph = self._graph()
        for b in self.bridges:
            params = self.graph.explicit.setdefault((b.source, b.target), [])
            if b.param not in params:
                params.append(b.param)
        self.used: Counter[str] = Counter()
        # Inferred writes that changed no visible state, and those that did: a tool tried
        # `UNVERIFIABLE_AFTER` times that never did is no longer drawn (reported as unverifiable).
        self.unseen_writes: Counter[str] = Counter()
        self.seen_writes: Counter[str] = Counter()

    def _agent_name(self, server_name: str) -> str:
        """The name the agent sees for a server's tool (a hidden tool's name is in no tool list)."""
        return self.rename_tools.get(server_name, server_name)

    # -- graph -------------------------------------------------------------------------------

    def _graph(self) -> ToolGraph:
        key = schema_hash(self.specs)
        path = cache_dir() / f"{self.server}-{key}.json"
        if path.exists() and self.llm is None:
            try:
                return ToolGraph.from_json(json.loads(path.read_text()))
            except (ValueError, TypeError):
                pass
        graph = ToolGraph()
        probe = random.Random(12345)
        for spec in self.usable:
            for _ in range(3):
                self.env.reset(options={"task": self.base_task})
                before = self.env.state.snapshot()
                args = self.filler.fill(spec, probe, [], {})
                if args is None:
                    continue
                obs, _, _, _, info = self.env.step({"name": spec.name, "arguments": args[0]})
                if not info["calls"][-1].ok:
                    continue
                changed = self.env.state.diff(before, self.env.state.snapshot()).groups if spec.write else {}
                graph.observe(spec.name, decode(obs), self.usable, self.pools, changed)
        graph.finish()
        if self.llm is not None:  # optional: drop edges the LLM finds meaningless (not cached)
            edges = [(a, b, ", ".join(p)) for (a, b), p in sorted(graph.explicit.items())]
            descriptions = {name: t.description or "" for name, t in self.env.mcp_tools.items()}
            dropped = self.llm.refine_edges(edges, descriptions)
            graph.explicit = {k: v for k, v in graph.explicit.items() if k not in dropped}
            self.llm_dropped_edges = sorted(f"{a} -> {b}" for a, b in dropped)
            return graph
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(graph.to_json(), indent=1))
        except OSError:
            pass
        return graph

    # -- chains --------------------------------------------------------------------------------------

    @property
    def unverifiable(self) -> set[str]:
        """Inferred write tools tried often that never changed the state a fingerprint sees."""
        return {t for t, n in self.unseen_writes.items() if n >= UNVERIFIABLE_AFTER and not self.seen_writes[t]}

    def _pick_tool(self, rng: random.Random, previous: Sequence[str], want_write: bool) -> ToolSpec:
        candidates = [s for s in self.usable if (s.write or not want_write) and s.name not in self.unverifiable]
        succ = set().union(*(self.graph.successors(p) for p in previous)) if previous else set()
        linked = [s for s in candidates if s.name in succ and s.name not in previous]
        pool = linked if linked and rng.random() < 0.7 else candidates
        weights = [1.0 / (1 + self.used[s.name]) for s in pool]
        return rng.choices(pool, weights=weights, k=1)[0]

    def _sample_chain(self, rng: random.Random) -> Chain | str:
        cfg = self.config
        length = rng.choices(range(1, cfg.max_chain + 1), weights=cfg.length_weights[: cfg.max_chain], k=1)[0]
        self.env.reset(options={"task": self.base_task})
        if not self.fp0:
            self.fp0 = self.env.state.fingerprint()
        calls: list[dict[str, Any]] = []
        sentences: list[str] = []
        outputs: list[Any] = []
        texts: list[str] = []
        names: list[str] = []
        entities: set[str] = set()
        call_refs: list[set[str]] = []
        carried_params: list[set[str]] = []
        earlier: dict[str, Any] = {}
        said: list[Said] = []  # the request so far, as its reader sees it
        hidden: list[int] = []  # writes that changed only what fingerprints leave out
        refs = 0
        write_at = rng.randrange(length)  # at least one write, here
        plan: list[str] = []
        if self.bridges and rng.random() < 0.6:  # a composition: start with a value crossing servers
            bridge = rng.choice(self.bridges)
            plan = [bridge.source, bridge.target]
            target_writes = self.by_name[bridge.target].write
            length = max(length, 2 if target_writes else 3)
            write_at = 1 if target_writes else rng.randrange(2, length)
        for i in range(length):
            planned = i < len(plan)
            spec = self.by_name[plan[i]] if planned else self._pick_tool(rng, names, want_write=(i == write_at))
            filled = self.filler.fill(spec, rng, outputs, earlier)
            if filled is None:
                return "no value for a required parameter"
            args, carried = filled  # carried: the parameters whose value an earlier output holds
            ref_params = self._one_meaning(spec, args, carried, said, earlier)
            sentence = render(spec.intent or "", args, ref_params)
            if sentence is None:
                return "template cannot be rendered"
            before = self.env.state.fingerprint() if spec.write else ""
            # an inferred write may change only what fingerprints leave out (git's index): seen here
            before_bytes = self.env.state.snapshot().digest if spec.write and spec.inferred else ""
            obs, _, _, _, info = self.env.step({"name": spec.name, "arguments": args})
            record = info["calls"][-1]
            if record.status == "tool_error":
                # a carried value stays even where it is rendered: the calls are the filler's alone
                repaired = self.filler.repair(args, carried, record.output)
                if repaired is not None:  # the error named the value it wanted: try that once
                    args = repaired
                    ref_params = self._one_meaning(spec, args, carried, said, earlier)  # its sentence changed
                    sentence = render(spec.intent or "", args, ref_params) or sentence
                    obs, _, _, _, info = self.env.step({"name": spec.name, "arguments": args})
                    record = info["calls"][-1]
                    self.repaired += record.status == "ok"
            if record.status != "ok":
                if record.status == "tool_error":
                    self.error_causes[(spec.name, error_cause(record.output))] += 1
                return f"call failed ({record.status})"
            if spec.write and self.env.state.fingerprint() == before:
                if not before_bytes or self.env.state.snapshot().digest == before_bytes:
                    if spec.inferred:
                        self.unseen_writes[spec.name] += 1
                    return "write changed nothing"
                hidden.append(len(calls))  # kept only if the final state needs it (below)
            elif spec.write and spec.inferred:
                self.seen_writes[spec.name] += 1
            calls.append({"name": spec.name, "arguments": args})
            sentences.append(sentence)
            outputs.append(decode(obs))
            earlier[spec.name] = outputs[-1]
            named = [(noun(p), v) for p, v in args.items() if p not in ref_params and format_value(v) in sentence]
            named += [(phrase.removeprefix("that "), args[p]) for p, phrase in ref_params.items()]
            said.append(Said(spec.name, sentence, tuple(named), outputs[-1]))
            texts.append(obs)
            names.append(spec.name)
            call_refs.append(set(ref_params))
            carried_params.append(set(carried))
            refs += len(ref_params)
            entities.update(str(v) for p, v in args.items() if p not in ref_params and shape(v))
        final = self.env.state.fingerprint()
        if final == self.fp0:
            return "writes cancel out (no net change)"  # e.g. freeze then unfreeze: nothing to check
        chain = Chain(
            calls, sentences, texts, refs, names, entities, call_refs, carried=carried_params, fingerprint=final
        )
        if not _traceable(chain, render_chain(sentences)):
            return "argument not traceable"
        if hidden and not all(self._needed(calls, i, final) for i in hidden):
            return "write changed only what fingerprints leave out"
        return chain

    def _needed(self, calls: Sequence[Mapping[str, Any]], skip: int, final: str) -> bool:
        """Whether the chain's final state needs call ``skip`` (a write no fingerprint sees).

        ``git add`` changes only the index, which fingerprints leave out; a commit after it
        needs it, and a chain that ends with it staged is no task a judge can check. The chain
        is played without the call: a failure or another final state means it is needed.
        """
        self.env.reset(options={"task": self.base_task})
        for i, call in enumerate(calls):
            if i == skip:
                continue
            _, _, _, _, info = self.env.step({"name": call["name"], "arguments": call["arguments"]})
            if info["calls"][-1].status != "ok":
                return True
        return self.env.state.fingerprint() != final

    def _one_meaning(
        self,
        spec: ToolSpec,
        args: Mapping[str, Any],
        refs: Mapping[str, str],
        said: Sequence[Said],
        earlier: Mapping[str, Any],
    ) -> dict[str, str]:
        """The references of a call that mean one thing; the others are rendered as their values.

        See `gym_mcp.synth.render` for the rule. A reference the template does not place is left
        as it is (nothing is said of it either way).
        """
        template = spec.intent or ""
        placed = {p for p in refs if "{" + p + "}" in template}
        fitting: set[str] = set()
        for param in sorted(placed):
            value = args[param]
            # the other entities its own sentence names (a reference among them: also a candidate)
            here = [(noun(p), v) for p, v in args.items() if p != param and "{" + p + "}" in template]
            # a bridge's value is the declared field of its source's output (wrapped for a list)
            bridged = {
                b.source: b.field
                for b in self.bridges
                if b.target == spec.name
                and b.param == param
                and b.source in earlier
                and value in (carried := dig(earlier[b.source], b.field), [carried])
            }
            if bridged:
                into = {b.source: b.field for b in self.bridges if b.target == spec.name and b.param == param}
                fits = is_anchored(value, "", (), said, bridged=into)
            else:
                pool = self.filler.pools.candidates(spec.pool_of(param))
                shapes = {s for v in [*list(pool)[:50], value] if (s := shape(v)) is not None}
                fits = is_anchored(value, noun(param), shapes, said, here)
            if fits:
                fitting.add(param)
        return {p: phrase for p, phrase in refs.items() if p not in placed or p in fitting}

    # -- tasks ---------------------------------------------------------------------------------------

    def _variant(self, rng: random.Random) -> str:
        variants = dict(self.config.variants)
        variants.pop("irrelevant", None)  # made separately, by quota
        if not self._distractor_pool():
            variants.pop("distractors", None)
        names = sorted(variants)
        return rng.choices(names, weights=[variants[n] for n in names], k=1)[0]

    def _distractor_pool(self) -> list[dict[str, Any]]:
        if not hasattr(self, "_distractors"):
            from gym_mcp.servers import BUNDLED, get_kit

            pool: list[dict[str, Any]] = []
            # neither a name the agent sees nor one the server lists: a hidden tool, or a renamed
            # one under its server name, never comes back as a distractor
            own = set(self.by_name) | self.server_tools
            mine = set(self.source.composition.parts.values()) if isinstance(self.source, CompositionSource) else set()
            for other in sorted(BUNDLED):
                if other == self.server or other in mine:
                    continue
                kit = get_kit(other)
                for info in kit.tools.values():
                    if info.name not in own:
                        pool.append({"server": other, "name": info.name})
            self._distractors = pool
        return self._distractors

    def _distractor_schemas(self, rng: random.Random) -> list[dict[str, Any]]:
        from gym_mcp.servers import get_kit

        picks = rng.sample(self._distractor_pool(), k=min(3, len(self._distractor_pool())))
        schemas = []
        for pick in picks:
            tools = kit_tools(get_kit(pick["server"]))
            schemas.extend(openai_tools([t for t in tools if t.name == pick["name"]]))
        return schemas

    def _irrelevant(self, index: int, request: str) -> Task:
        """A request the server cannot serve: the right behaviour is no call at all."""
        if not self.fp0:
            self.env.reset(options={"task": self.base_task})
            self.fp0 = self.env.state.fingerprint()
        return Task(
            id=f"{self.server}-{index:05d}",
            server=self.server,
            instruction=request,
            initial_state={"seed": self.config.data_seed},
            reference_calls=(),
            expected_fingerprint=self.fp0,
            difficulty="easy",
            variant="irrelevant",
            metadata={"length": 0, "dependencies": 0, "tools": [], "entities": []},
        )

    def _to_task(self, index: int, chain: Chain, variant: str, rng: random.Random) -> Task | None:
        instruction = render_chain(chain.sentences)
        hidden_goal = None
        metadata: dict[str, Any] = {}
        user: UserScenario | None = None
        if variant == "missing_param":
            hidden = hide_param(chain, rng, self.by_name)
            if hidden is None:
                variant = "complete"
            else:
                instruction, hidden_goal, metadata["missing"] = hidden
                user = scenario(chain, self.by_name, [instruction], [len(chain.calls)], missing=metadata["missing"])
        elif variant in DIALOGUE_KINDS:
            made = dialogue(chain, variant, rng, self.by_name, self.pools)
            if made is None:
                return None
            user, hidden_goal = made
            instruction = user.stages[0].request
        if variant == "distractors":
            metadata["distractor_tools"] = self._distractor_schemas(rng)
        if self.llm is not None and variant in ("complete", "distractors"):
            paraphrase = self.llm.paraphrase(instruction)
            if paraphrase and _traceable(chain, paraphrase):
                metadata["template_instruction"] = instruction
                instruction = paraphrase
                self.paraphrased += 1
            else:
                self.rejects["paraphrase dropped a value (template kept)"] += 1
        if user is None and self.config.ask_to_confirm and confirm_calls(chain, self.by_name):
            user = scenario(chain, self.by_name, [instruction], [len(chain.calls)])
        length, deps = len(chain.calls), chain.refs
        difficulty = "easy" if length == 1 else "hard" if length >= 4 or deps >= 2 else "medium"
        difficulty_meta = {
            "length": length,
            "dependencies": deps,
            "tools": chain.tools,
            "entities": sorted(chain.entities),
        }
        return Task(
            id=f"{self.server}-{index:05d}",
            server=self.server,
            instruction=instruction,
            initial_state={"seed": self.config.data_seed},
            reference_calls=tuple(chain.calls),
            expected_fingerprint=None,  # set by replay
            hidden_goal=hidden_goal,
            difficulty=difficulty,
            variant=variant,
            metadata={**difficulty_meta, **metadata},
            user=user,
        )

    # -- the run -------------------------------------------------------------------------------------

    def run(self) -> SynthResult:
        cfg = self.config
        start = time.perf_counter()
        weights = dict(cfg.variants)
        share = weights.get("irrelevant", 0.0) / max(sum(weights.values()), 1e-9)
        n_irrelevant = min(round(cfg.n * share), len(IRRELEVANT_REQUESTS))
        n_chains = cfg.n - n_irrelevant
        kept: list[Task] = []
        tokens_index: dict[str, list[int]] = {}
        token_sets: list[set[str]] = []
        attempts = 0
        pending: str | None = None
        misses = 0
        replay_time = 0.0
        while len(kept) < n_chains and attempts < cfg.n * cfg.max_attempts:
            attempts += 1
            rng = random.Random(self.rng.random())
            chain = self._sample_chain(rng)
            if isinstance(chain, str):
                self.rejects[chain] += 1
                continue
            tokens = {json.dumps(c, sort_keys=True) for c in chain.calls}
            close = {j for tok in tokens for j in tokens_index.get(tok, [])}
            if any(jaccard(tokens, token_sets[j]) >= cfg.jaccard for j in close):
                self.rejects["near-duplicate"] += 1
                continue
            variant = pending or self._variant(rng)
            task = self._to_task(len(kept), chain, variant, rng)
            misses = misses + 1 if task is None else 0
            # A dialogue kind waits for a chain that fits it (for a while: a server may have few).
            pending = variant if task is None and misses < 40 else None
            if task is None:
                self.rejects["chain does not fit the variant"] += 1
                continue
            # Verified now, so a task the replay drops is replaced by another chain: n stays n.
            t0 = time.perf_counter()
            verified = self.prover.finish([task], [chain])
            replay_time += time.perf_counter() - t0
            if not verified:
                continue
            task = verified[0]
            for tok in tokens:
                tokens_index.setdefault(tok, []).append(len(token_sets))
            token_sets.append(tokens)
            for name in chain.tools:
                self.used[name] += 1
            kept.append(task)
            if self.progress:
                self.progress(len(kept), cfg.n)
        if len(kept) < n_chains:
            top = [
                f"{g['tool']}: {g['causes'][0]['cause']} ({g['causes'][0]['count']})"
                for g in tool_error_causes(self.error_causes, per_tool=1)[:3]
            ]
            raise SynthError(
                f"{self.server}: only {len(kept)} of {n_chains} call chains survived {attempts} attempts "
                f"(rejections: {dict(self.rejects.most_common(5))})"
                + (f"; commonest tool errors: {'; '.join(top)}" if top else "")
            )
        requests = self.rng.sample(IRRELEVANT_REQUESTS, n_irrelevant)
        irrelevant = [self._irrelevant(len(kept) + i, request) for i, request in enumerate(requests)]
        t0 = time.perf_counter()
        tasks = kept + self.prover.finish(irrelevant)
        self.prover.settle()  # the deferred clock probes: their parts count in what follows
        if self.prover.volatile:  # every task judged with every part found minted, not only its own
            tasks = self.prover.with_volatile(tasks)
        replay_time += time.perf_counter() - t0
        if self.progress:
            self.progress(len(tasks), cfg.n)
        gen_time = time.perf_counter() - start - replay_time
        tasks = self._split(tasks)
        stats = self._stats(tasks, attempts, gen_time, replay_time)
        said = nondeterminism_lines(stats)
        if said:  # the user must hear it even without reading the report: their spec is incomplete
            print("\n".join(said), file=sys.stderr)
        return SynthResult(tasks, stats)

    def _dialogue_completes(self, task: Task) -> bool:
        """Whether the task's reference dialogue, played against the scripted user, completes it."""
        if self.dialogue_env is None:
            self.dialogue_env = MCPEnv(
                self.source,
                max_steps=1_000_000,
                user="scripted",
                max_user_turns=100,
                hide_tools=self.hide_tools,
                rename_tools=self.rename_tools,
            )
        result = replay(self.dialogue_env, task)
        terms = result.info.get("reward_terms", {})
        return result.ok and terms.get("success") == 1.0 and bool(result.info.get("user", {}).get("stopped"))

    def _split(self, tasks: list[Task]) -> list[Task]:
        cfg = self.config
        rng = random.Random(cfg.seed + 1)
        tools = sorted(s.name for s in self.usable)
        k = max(1, round(len(tools) * cfg.heldout_fraction))
        held_tools = set(rng.sample(tools, k)) if cfg.heldout_tools else set()

        def held_entity(value: str) -> bool:
            return random.Random(f"{cfg.seed}:{value}").random() < cfg.heldout_fraction

        out = []
        for task in tasks:
            meta = task.metadata
            test = bool(set(meta.get("tools", [])) & held_tools) or any(
                held_entity(e) for e in meta.get("entities", [])
            )
            if task.variant == "irrelevant":
                test = random.Random(f"{cfg.seed}:{task.id}").random() < 0.2
            out.append(_replace(task, split="test" if test else "train"))
        if not cfg.heldout_tools:  # a tool that only held-out tasks call would be held out by chance
            trained = {n for t in out if t.split == "train" for n in t.metadata.get("tools", [])}
            for i, task in enumerate(out):
                tools_of = set(task.metadata.get("tools", []))
                if task.split == "test" and not tools_of <= trained:
                    out[i] = _replace(task, split="train")
                    trained |= tools_of
        self.held_tools = held_tools
        return out

    def _stats(self, tasks: list[Task], attempts: int, gen_time: float, replay_time: float) -> dict[str, Any]:
        with_calls = [t for t in tasks if t.reference_calls]
        sequences = {json.dumps([dict(c) for c in t.reference_calls], sort_keys=True) for t in with_calls}
        tool_counts = Counter(c["name"] for t in tasks for c in t.reference_calls)
        total = gen_time + replay_time
        return {
            "server": self.server,
            "tasks": len(tasks),
            "attempts": attempts,
            "by_length": dict(sorted(Counter(len(t.reference_calls) for t in tasks).items())),
            "by_variant": dict(sorted(Counter(t.variant for t in tasks).items())),
            "by_difficulty": dict(sorted(Counter(str(t.difficulty) for t in tasks).items())),
            "by_split": dict(sorted(Counter(t.split for t in tasks).items())),
            "unique_call_sequences": len(sequences) / max(1, len(with_calls)),
            "tool_coverage": len(tool_counts) / max(1, len(self.specs)),
            "tools_total": len(self.specs),
            "hidden_tools": sorted(self.hide_tools),
            "renamed_tools": dict(sorted(self.rename_tools.items())),
            "tools_used": dict(sorted(tool_counts.items())),
            "tools_unused": sorted(set(self.by_name) - set(tool_counts)),
            # tools without gym_mcp/* metadata: which were inferred, and why some cannot be used
            **(
                {
                    "inferred_tools": sorted(s.name for s in self.specs if s.inferred and s.intent),
                    "skipped_tools": dict(sorted(self.skipped.items())),
                    **({"llm_labelled_tools": self.labelled} if self.labeler is not None else {}),
                    "unverifiable_tools": sorted(self.unverifiable),
                }
                if any(s.inferred for s in self.specs)
                else {}
            ),
            "heldout_tools": sorted(getattr(self, "held_tools", set())),
            "rejections": dict(self.rejects.most_common()),
            "tool_error_causes": tool_error_causes(self.error_causes),
            "repaired_from_error_messages": self.repaired,
            "paraphrased": self.paraphrased,
            "graph_edges": {"explicit": len(self.graph.explicit), "implicit": len(self.graph.implicit)},
            "llm_dropped_edges": getattr(self, "llm_dropped_edges", []),
            "nondeterministic": {
                "setting": self.config.nondeterministic,
                "tasks_marked": self.prover.marked,
                "tasks_refused": self.prover.refused,
                "volatile": {g: sorted(f) for g, f in sorted(self.prover.volatile.items())},
                "spec_lines": self.env.state.spec_lines(self.prover.volatile) if self.prover.volatile else [],
            },
            "seconds": {"generate": round(gen_time, 2), "replay": round(replay_time, 2)},
            "replay_share": round(replay_time / total, 3) if total else 0.0,
            "verified_tasks_per_minute": round(len(tasks) / total * 60, 1) if total else 0.0,
        }

    def close(self) -> None:
        self.env.close()
        if self.dialogue_env is not None:
            self.dialogue_env.close()


def _traceable(chain: Chain, instruction: str) -> bool:
    """Every argument value is in the instruction or in an earlier call's output."""
    return all(
        is_traceable(value, instruction, chain.outputs[:i])
        for i, call in enumerate(chain.calls)
        for value in leaves(call["arguments"])
    )


def _replace(task: Task, **changes: Any) -> Task:
    return Task.from_dict({**task.to_dict(), **changes})


def synthesize(
    server: str | os.PathLike[str] | ServerSource | ServerSpec,
    config: SynthConfig | None = None,
    *,
    progress: ProgressFn | None = None,
    llm: ChatEndpoint | None = None,
    hide_tools: Iterable[str] = (),
    rename_tools: Mapping[str, str] | None = None,
    labeler: ToolLabeler | None = None,
) -> SynthResult:
    """Synthesize replay-verified tasks for a server.

    The tasks are for an environment that shows the agent the same tools: a spec's ``[tools]``
    rules and ``hide_tools`` / ``rename_tools`` are applied as ``gym_mcp/External-v0`` applies
    them, so tasks made from ``"server.toml"`` replay in
    ``gym.make("gym_mcp/External-v0", spec="server.toml")``. A hidden tool is never called nor
    offered as a distractor; a renamed tool is called, and listed in ``metadata["tools"]``, by
    the name the agent sees. A `ServerSource` carries no tool rules (``spec_source(load_spec(f))``
    drops them): give the spec itself, or the rules as keywords.

    Args:
        server: A bundled server name, a spec file path (``.toml``, ``.json``, ``.yaml``), a
            parsed `ServerSpec`, or a `ServerSource` (with an SQLite state for entities).
        config: Settings (default `SynthConfig()`).
        progress: Called with (tasks kept, tasks wanted) as tasks are kept.
        llm: An optional chat endpoint that paraphrases instructions (kept only when every value
            the agent needs survives the paraphrase).
        hide_tools: Tools the agent never sees nor can call (server names; added to a spec's),
            as `MCPEnv`'s keyword of the same name.
        rename_tools: ``{server name: name the agent sees}`` (over a spec's), as `MCPEnv`'s.
        labeler: An LLM that labels the tools without ``gym_mcp/*`` metadata (kinds, templates,
            pools) over the rules' guesses, through its labels file (`gym_mcp.synth.labels`);
            a spec file's hints still come last.

    Returns:
        The tasks and their statistics.

    Raises:
        SynthError: The server has no write tools (that the agent sees), its seed state no
            entities, or too few chains survive.
        ConfigError: A bad spec file, a hidden or renamed tool the server does not list, or
            labels from the ``labeler`` that are no hints (one line each).
        EndpointError: The ``labeler``'s endpoint is down or answers with an error.
    """
    config = config or SynthConfig()
    hide = list(hide_tools)
    rename = dict(rename_tools or {})
    spec = load_spec(server) if not isinstance(server, ServerSpec | ServerSource) and is_spec_file(server) else server
    source: ServerSource
    if isinstance(spec, ServerSpec):  # its rules, then the keywords', as External-v0 does
        source = spec_source(spec)
        hide = [*spec.hide_tools, *hide]
        rename = {**spec.rename_tools, **rename}
    elif isinstance(spec, ServerSource):
        source = spec
    else:
        source = bundled_source(os.fspath(spec))
    name = spec if isinstance(spec, str) else source.name
    hints = dict(spec.tool_hints) if isinstance(spec, ServerSpec) else {}
    where = f"{spec.source_file or 'spec'} (server {spec.name!r})" if isinstance(spec, ServerSpec) else name
    # Before anything else runs on it: does a reset really reset it? (A server that keeps state
    # in memory would make replays disagree for reasons no spec line can fix; warned here.)
    checked = check_reset(source, hide_tools=hide, rename_tools=rename) if _own_state(source) else None

    def synthesizer(defer: bool) -> _Synthesizer:
        return _Synthesizer(
            name,
            source,
            config,
            progress,
            llm,
            hide_tools=hide,
            rename_tools=rename,
            tool_hints=hints,
            where=where,
            labeler=labeler,
            defer_clock_probes=defer,
        )

    # Clock probes deferred (`gym_mcp.synth.proving`): the same tasks without the waits, unless
    # a probe rejects a task kept ahead of it; then the run is made again, probing in place.
    synth, probes = synthesizer(True), "deferred"
    try:
        try:
            result = synth.run()
        except ProbeRejected:
            synth.close()
            synth, probes = synthesizer(False), "in place (a deferred one rejected a task kept ahead of it)"
            result = synth.run()
    except SynthError as exc:
        if checked is not None and checked.differing:  # the likely cause: replays start from what memory kept
            raise SynthError(f"{exc}; {checked.message()}") from exc
        raise
    finally:
        synth.close()
    result.stats["clock_probes"] = probes
    if checked is not None:
        result.stats["reset_check"] = checked.to_dict()
    return result


def _own_state(source: ServerSource) -> bool:
    """Whether the reset check runs on ``source``: a third-party server on a copy of its own.

    Bundled servers keep their state in the database the kit gives them; a server someone else
    runs (a url, no command) has no copy a write may go to.
    """
    if isinstance(source, ComposedSource):
        return any(_own_state(part) for part in source.parts.values()) and not any(
            isinstance(part, ExternalSource) and part.shared for part in source.parts.values()
        )
    return isinstance(source, ExternalSource) and not source.shared


def write_outputs(result: SynthResult, out: str | os.PathLike[str]) -> list[Path]:
    """Write the tasks (JSONL), the report (.txt) and its plot (.png) atomically.

    Returns:
        The files written.
    """
    from gym_mcp.synth.report import report_text, write_plot

    path = Path(out)
    save_tasks(result.tasks, path)
    txt = path.with_suffix(".report.txt")
    tmp = txt.with_name(txt.name + ".tmp")
    tmp.write_text(report_text(result.stats))
    tmp.replace(txt)
    files = [path, txt]
    png = write_plot(result.stats, path.with_suffix(".report.png"))
    if png is not None:
        files.append(png)
    return files
