"""The static families: what the agent is shown, fixed at reset for the whole episode.

- observation: typos and paraphrases of the instruction and of tool and parameter
  descriptions (rule-based; `Paraphrase` asks an LLM when given a chat client, and keeps its
  wording only when every value of the task is still there verbatim);
- action: distractor tools, near-duplicate tools, enums stripped from schemas, renamed tools and
  parameters (a call under a new name is mapped back, so the server still works);
- metadata: misleading descriptions, latency and cost notes.

Names, ids and values are never touched: typos and paraphrases change only plain lowercase
words that are not part of any of the task's values.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

from gym_mcp.errors import ConfigError
from gym_mcp.wrappers.perturbation import EpisodeContext, Perturbation

if TYPE_CHECKING:
    from gym_mcp.chat import ChatClient

__all__ = [
    "CostNotes",
    "DistractorTools",
    "DuplicateTools",
    "MisleadingDescriptions",
    "Paraphrase",
    "RenamedParams",
    "RenamedTools",
    "StrippedEnums",
    "Typos",
]

Tools = list[dict[str, Any]]


def _fn(tool: dict[str, Any]) -> dict[str, Any]:
    fn: dict[str, Any] = tool.setdefault("function", {})
    return fn


def _params(tool: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = (_fn(tool).get("parameters") or {}).get("properties") or {}
    return props


def _rate(owner: str, name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{owner}: {name} must be between 0 and 1, got {value!r}")
    return value


# -- observation ----------------------------------------------------------------------------------

_WORD = re.compile(r"\b[a-z]{4,}\b")


def _protected(word: str, values: frozenset[str]) -> bool:
    return any(word in value.lower() for value in values)


def _typo(word: str, rng: Any) -> str:
    i = rng.randrange(1, len(word) - 1)
    how = rng.randrange(3)
    if how == 0:  # two letters swapped
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == 1:  # a letter dropped
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]  # a letter doubled


class _TextPerturbation(Perturbation):
    """Rewrites the instruction and the tool and parameter descriptions with `rewrite`."""

    family = "observation"

    def __init__(self, instruction: bool, descriptions: bool) -> None:
        self.on_instruction = instruction
        self.on_descriptions = descriptions

    def rewrite(self, text: str, episode: EpisodeContext) -> str:
        """The perturbed ``text``."""
        raise NotImplementedError

    def instruction(self, text: str, episode: EpisodeContext) -> str:
        """The rewritten instruction."""
        if not self.on_instruction:
            return text
        changed = self.rewrite(text, episode)
        if changed != text:
            episode.note(self, "", changed)
        return changed

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools with rewritten descriptions (tool and parameters)."""
        if not self.on_descriptions:
            return tools
        for tool in tools:
            fn = _fn(tool)
            places = [(fn, "description")] + [(p, "description") for p in _params(tool).values() if isinstance(p, dict)]
            changed = 0
            for holder, key in places:
                text = holder.get(key)
                if isinstance(text, str) and text:
                    new = self.rewrite(text, episode)
                    changed += new != text
                    holder[key] = new
            if changed:
                episode.note(self, str(fn.get("name", "")), f"{changed} description(s)")
        return tools


class Typos(_TextPerturbation):
    """Typos (swapped, dropped or doubled letters) in plain words; names and values stay intact.

    Args:
        rate: Probability that an eligible word (4+ lowercase letters, not part of a value) gets a typo.
        instruction: Perturb the instruction.
        descriptions: Perturb the tool and parameter descriptions.
    """

    kind = "typos"

    def __init__(self, rate: float = 0.1, instruction: bool = True, descriptions: bool = True) -> None:
        super().__init__(instruction, descriptions)
        self.rate = _rate("Typos", "rate", rate)

    def rewrite(self, text: str, episode: EpisodeContext) -> str:
        """``text`` with typos."""

        def swap(match: re.Match[str]) -> str:
            word = match.group(0)
            if _protected(word, episode.values) or episode.rng.random() >= self.rate:
                return word
            return _typo(word, episode.rng)

        return _WORD.sub(swap, text)


_PARAPHRASES = {
    "show": "display",
    "find": "look up",
    "check": "verify",
    "please": "kindly",
    "create": "set up",
    "list": "give me",
    "update": "change",
    "remove": "take out",
    "delete": "get rid of",
    "send": "dispatch",
    "returns": "gives back",
    "return": "give back",
    "optional": "not required",
    "required": "mandatory",
    "current": "present",
    "first": "initial",
    "also": "additionally",
    "then": "after that",
    "every": "each",
    "make": "create",
}
_OPENERS = ("Hi! ", "Hello, ", "Quick request: ", "Could you help? ", "")
_CLOSERS = (" Thanks!", " Thank you.", " Appreciated.", "")
_PROMPT = (
    "Rewrite the request below in other words, as another person would ask it. Keep every name, "
    "number, id, date, amount and quoted value exactly as written. Reply with the rewritten "
    "request only.\n\nRequest: {text}"
)


class Paraphrase(_TextPerturbation):
    """Paraphrases: the instruction reworded (and plain words of the descriptions swapped for synonyms).

    Rule-based by default: words swapped for synonyms and a greeting or thanks around the
    instruction. With ``client``, the instruction is reworded by that LLM, and the rewording is
    kept only when every one of the task's values in it is still there verbatim (as synthesis
    keeps its paraphrases); otherwise the rule-based one is used and the injection says so.

    Args:
        rate: Probability that a word with a synonym is swapped.
        instruction: Paraphrase the instruction.
        descriptions: Paraphrase the tool and parameter descriptions (rule-based).
        client: An OpenAI-compatible chat client to reword the instruction.
        endpoint: Or its base URL (``http://127.0.0.1:8000/v1``), as a mix's TOML gives it.
        model: The model name to send it.
    """

    kind = "paraphrase"

    def __init__(
        self,
        rate: float = 0.5,
        instruction: bool = True,
        descriptions: bool = True,
        client: ChatClient | None = None,
        endpoint: str | None = None,
        model: str = "default",
    ) -> None:
        super().__init__(instruction, descriptions)
        self.rate = _rate("Paraphrase", "rate", rate)
        if client is None and endpoint is not None:
            from gym_mcp.chat import ChatClient

            client = ChatClient(endpoint, timeout=30.0, max_retries=1)
        self.client = client
        self.model = model

    def fork(self) -> Paraphrase:
        """The same paraphraser (it keeps no per-episode state; its chat client is shared)."""
        return copy.copy(self)

    def rewrite(self, text: str, episode: EpisodeContext) -> str:
        """``text`` with synonyms swapped in."""

        def swap(match: re.Match[str]) -> str:
            word = match.group(0)
            if word.lower() not in _PARAPHRASES or _protected(word.lower(), episode.values):
                return word
            if episode.rng.random() >= self.rate:
                return word
            new = _PARAPHRASES[word.lower()]
            return new[:1].upper() + new[1:] if word[:1].isupper() else new

        return re.sub(r"\b[A-Za-z]+\b", swap, text)

    def instruction(self, text: str, episode: EpisodeContext) -> str:
        """The instruction reworded (by the LLM when one is given and it keeps every value)."""
        if not self.on_instruction:
            return text
        needed = sorted(v for v in episode.values if v in text)
        if self.client is not None:
            body = {
                "model": self.model,
                "temperature": 0,
                "messages": [{"role": "user", "content": _PROMPT.format(text=text)}],
            }
            try:
                worded = str(self.client.reply(body).get("content") or "").strip()
            except Exception as exc:  # an endpoint that fails must not fail the reset
                worded, lost = "", f"endpoint failed: {type(exc).__name__}"
            else:
                missing = [v for v in needed if v not in worded]
                lost = f"dropped {missing[0]!r}" if missing else "" if worded else "empty reply"
            if worded and not lost:
                episode.note(self, "", worded)
                return worded
            episode.note(self, "", f"LLM paraphrase not kept ({lost}); rule-based instead")
        changed = self.rewrite(text, episode)
        opener, closer = episode.rng.choice(_OPENERS), episode.rng.choice(_CLOSERS)
        changed = opener + (changed[:1].lower() + changed[1:] if opener and opener[-2] in ",:" else changed) + closer
        if changed != text:
            episode.note(self, "", changed)
        return changed


# -- action space ---------------------------------------------------------------------------------

_VERBS = {
    "get": "fetch",
    "list": "show",
    "search": "find",
    "create": "add",
    "update": "modify",
    "delete": "remove",
    "cancel": "void",
    "send": "dispatch",
    "add": "insert",
    "set": "configure",
    "remove": "drop",
    "check": "verify",
    "find": "lookup",
    "book": "reserve",
    "transfer": "move",
}


def _renamed(name: str, taken: set[str]) -> str:
    head, _, rest = name.partition("_")
    new = f"{_VERBS[head]}_{rest}" if head in _VERBS and rest else f"{name}_op"
    while new in taken:
        new += "_"
    return new


class _Renames(Perturbation):
    """Shown names mapped back to the names they replace (per episode)."""

    family = "action"

    def __init__(self, p: float) -> None:
        self.p = _rate(type(self).__name__, "p", p)
        self._tools: dict[str, str] = {}  # shown tool name -> name it replaces
        self._params: dict[str, dict[str, str]] = {}  # tool (as shown after this step) -> shown param -> original

    def start(self, episode: EpisodeContext) -> None:
        """A new episode draws new names."""
        self._tools, self._params = {}, {}

    def route(self, name: str, arguments: Any) -> tuple[str, Any]:
        """The call under the names it replaced."""
        params = self._params.get(name)
        if params and isinstance(arguments, dict):
            arguments = {params.get(k, k): v for k, v in arguments.items()}
        return self._tools.get(name, name), arguments


class RenamedTools(_Renames):
    """Tools shown under other names (``get_balance`` -> ``fetch_balance``); calls are mapped back.

    Args:
        p: Probability that a tool is renamed.
    """

    kind = "renamed_tool"

    def __init__(self, p: float = 0.3) -> None:
        super().__init__(p)

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools, some renamed."""
        taken = {str(_fn(t).get("name", "")) for t in tools}
        for tool in tools:
            fn = _fn(tool)
            name = str(fn.get("name", ""))
            if episode.rng.random() < self.p:
                new = _renamed(name, taken)
                taken.add(new)
                fn["name"] = new
                self._tools[new] = name
                episode.note(self, name, f"{name} -> {new}", original=name, shown=new)
        return tools


def _camel(name: str) -> str | None:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest) if rest and head else None


class RenamedParams(_Renames):
    """Parameters shown under other names (``account_id`` -> ``accountId``); calls are mapped back.

    Args:
        p: Probability that a (snake_case) parameter is renamed.
    """

    kind = "renamed_param"

    def __init__(self, p: float = 0.3) -> None:
        super().__init__(p)

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools, some parameters renamed (in ``properties`` and ``required``)."""
        for tool in tools:
            fn = _fn(tool)
            name = str(fn.get("name", ""))
            schema = fn.get("parameters") or {}
            props = schema.get("properties") or {}
            renames: dict[str, str] = {}
            for param in list(props):
                new = _camel(param)
                if new is None or new in props or episode.rng.random() >= self.p:
                    continue
                renames[param] = new
                episode.note(self, name, f"{name}.{param} -> {new}", original=param, shown=new)
            if renames:
                schema["properties"] = {renames.get(k, k): v for k, v in props.items()}
                if "required" in schema:
                    schema["required"] = [renames.get(k, k) for k in schema["required"]]
                self._params[name] = {new: old for old, new in renames.items()}
        return tools


_QUOTED_CHOICES = re.compile(r'"[^"]+"(?:, "[^"]+")* (?:or|and) "[^"]+"')
_LISTED_CHOICES = re.compile(r"(?<=: )[a-z][a-z_]*(?:, [a-z][a-z_]*)+,? or [a-z][a-z_]*")


def _without_choices(text: str) -> str:
    return _LISTED_CHOICES.sub("one of the allowed values", _QUOTED_CHOICES.sub("an allowed value", text))


class StrippedEnums(Perturbation):
    """Parameters lose the list of values they allow (the server still refuses any other).

    Both places a list of allowed values lives go: a schema's ``enum`` and a description's
    ``"checking", "savings" or "credit"`` (how the bundled servers write them).

    Args:
        p: Probability that a parameter's enum is stripped.
    """

    kind = "stripped_enum"
    family = "action"

    def __init__(self, p: float = 1.0) -> None:
        self.p = _rate("StrippedEnums", "p", p)

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools, enums removed."""
        for tool in tools:
            for param, schema in _params(tool).items():
                if not isinstance(schema, dict):
                    continue
                text = str(schema.get("description", ""))
                stripped = _without_choices(text)
                if ("enum" in schema or stripped != text) and episode.rng.random() < self.p:
                    schema.pop("enum", None)
                    if stripped != text:
                        schema["description"] = stripped
                    episode.note(self, str(_fn(tool).get("name", "")), f"{param}: allowed values stripped")
        return tools


def _sample(tools: Tools, n: int, episode: EpisodeContext) -> Tools:
    """``n`` of ``tools``, the task's own tools first (in random order), then others."""
    own = [t for t in tools if _fn(t).get("name") in episode.needed]
    rest = [t for t in tools if _fn(t).get("name") not in episode.needed]
    episode.rng.shuffle(own)
    episode.rng.shuffle(rest)
    return (own + rest)[:n]


def _copy_of(tool: dict[str, Any], name: str, description: str) -> dict[str, Any]:
    """A new tool with ``tool``'s schema (deep-copied: later perturbations edit each on its own)."""
    fn = copy.deepcopy(_fn(tool))
    fn["name"], fn["description"] = name, description
    return {"type": "function", "function": fn}


_SERVICES = ("legacy", "archive", "sandbox", "partner")


class DistractorTools(Perturbation):
    """Extra tools that look like real ones but belong to another service (calling one fails).

    Each is a copy of a real tool under the other service's name (``archive_get_balance``),
    described as that service's. A call to one is answered with an error and never reaches the
    server.

    Args:
        n: How many distractors (copies of the task's own tools first, the ones that can mislead).
    """

    kind = "distractor_tool"
    family = "action"

    def __init__(self, n: int = 3) -> None:
        if n < 1:
            raise ConfigError(f"DistractorTools: n must be at least 1, got {n!r}")
        self.n = n
        self._fake: dict[str, str] = {}

    def start(self, episode: EpisodeContext) -> None:
        """New distractors each episode."""
        self._fake = {}

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools plus the distractors, each placed at a random position."""
        taken = {str(_fn(t).get("name", "")) for t in tools}
        sources = _sample(tools, self.n, episode)
        out = list(tools)
        for source in sources:
            service = episode.rng.choice(_SERVICES)
            source_name = str(_fn(source).get("name", ""))
            name = f"{service}_{source_name}"
            if name in taken:
                continue
            taken.add(name)
            described = f"[{service} service] {_fn(source).get('description', '')}".strip()
            out.insert(episode.rng.randrange(len(out) + 1), _copy_of(source, name, described))
            self._fake[name] = service
            episode.note(self, name, f"distractor from the {service} service", original=str(source_name), shown=name)
        return out

    def before(self, tool: str, arguments: Any, episode: EpisodeContext) -> str | None:
        """A call to a distractor fails (it is not sent)."""
        service = self._fake.get(tool)
        if service is None:
            return None
        return f"Error: {tool}: the {service} service holds no records for this account; nothing was done."


class DuplicateTools(Perturbation):
    """Redundant near-duplicates of real tools (``get_balance_v2``): they work, as the original does.

    Args:
        n: How many duplicates (of the task's own tools first).
    """

    kind = "duplicate_tool"
    family = "action"

    def __init__(self, n: int = 2) -> None:
        if n < 1:
            raise ConfigError(f"DuplicateTools: n must be at least 1, got {n!r}")
        self.n = n
        self._copies: dict[str, str] = {}

    def start(self, episode: EpisodeContext) -> None:
        """New duplicates each episode."""
        self._copies = {}

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools plus the duplicates, each right after its original."""
        taken = {str(_fn(t).get("name", "")) for t in tools}
        chosen = {id(t) for t in _sample(tools, self.n, episode)}
        out: Tools = []
        for tool in tools:
            out.append(tool)
            if id(tool) not in chosen:
                continue
            original = str(_fn(tool).get("name", ""))
            name = f"{original}_v2"
            if name in taken:
                continue
            taken.add(name)
            out.append(_copy_of(tool, name, f"Version 2 of {original}. {_fn(tool).get('description', '')}".strip()))
            self._copies[name] = original
            episode.note(self, name, f"duplicate of {original}", original=original, shown=name)
        return out

    def route(self, name: str, arguments: Any) -> tuple[str, Any]:
        """A duplicate's call goes to its original."""
        return self._copies.get(name, name), arguments


# -- metadata -------------------------------------------------------------------------------------


class MisleadingDescriptions(Perturbation):
    """Descriptions that mislead: a tool said to be deprecated in favour of another, or a write said to only read.

    Args:
        p: Probability that a tool's description gets a misleading note.
    """

    kind = "misleading_description"
    family = "metadata"

    def __init__(self, p: float = 0.3) -> None:
        self.p = _rate("MisleadingDescriptions", "p", p)

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools, some with a misleading note before their description."""
        names = [str(_fn(t).get("name", "")) for t in tools]
        for tool in tools:
            fn = _fn(tool)
            name = str(fn.get("name", ""))
            if len(names) < 2 or episode.rng.random() >= self.p:
                continue
            if name not in episode.read_only and episode.rng.random() < 0.5:
                note = "Read-only: looks information up and never changes anything."
            else:
                note = f"Deprecated: use {episode.rng.choice([n for n in names if n != name])} instead."
            fn["description"] = f"{note} {fn.get('description', '')}".strip()
            episode.note(self, name, note)
        return tools


class CostNotes(Perturbation):
    """Latency and cost notes on tools ("Slow: about 40 s per call", "Costs $0.35 per call").

    The notes are only words: the calls cost and take what they always do.

    Args:
        p: Probability that a tool gets a note.
    """

    kind = "cost_note"
    family = "metadata"

    def __init__(self, p: float = 0.3) -> None:
        self.p = _rate("CostNotes", "p", p)

    def tools(self, tools: Tools, episode: EpisodeContext) -> Tools:
        """The tools, some with a note after their description."""
        for tool in tools:
            fn = _fn(tool)
            if episode.rng.random() >= self.p:
                continue
            if episode.rng.random() < 0.5:
                note = f"Slow: takes about {episode.rng.randint(10, 90)} s per call."
            else:
                note = f"Costs ${episode.rng.randint(5, 95) / 100:.2f} per call; avoid unneeded calls."
            fn["description"] = f"{fn.get('description', '')} {note}".strip()
            episode.note(self, str(fn.get("name", "")), note)
        return tools
