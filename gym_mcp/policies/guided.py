"""Tool calls decoded under the shown tools' JSON schemas (xgrammar), as vLLM's guided decoding does.

A reply is free text until the model opens a call (``<tool_call>``); from there on, the tokens
it may pick are those that keep the call well-formed: a tool name from the prompt's tool list,
that tool's argument names (each at most once, every required one before the object closes),
values of the schema's types, JSON (``false``, not ``False``), and the format's closing tag.
Which tokens keep the text in that grammar is xgrammar's work (the structured-output engine
vLLM and SGLang use): a compiled grammar per tool list, and per reply a matcher that fills a
token bitmask at each step.

The model still decides everything the schemas leave open: whether to call at all, which tool,
which values. What guided decoding removes is the class of mistakes no tool would accept (an
argument the tool does not take, a misspelled name, Python literals in JSON), so a small model's
remaining failures are its decisions. The same guidance is available where an adapter is served:
vLLM's tool calling with structured outputs constrains calls to the tools' schemas the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gym_mcp.errors import DependencyMissing

__all__ = ["CallGrammar", "call_layout"]

_PROBE = "zz_probe_tool"


def call_layout(fmt: Any) -> tuple[str, str, str] | None:
    """How ``fmt`` writes one tool call: ``(begin, arguments_prefix, end)``.

    A call to tool ``NAME`` with arguments ``A`` is written ``begin + NAME + arguments_prefix +
    json(A) + end``, e.g. ``('<tool_call>{"name": "', '", "arguments": ', '}</tool_call>')`` for
    the compact prompt. Found by rendering a probe call through the format, so a chat template
    that writes calls its own way (Qwen's newlines) is followed too.

    Returns:
        The three parts, or None when the format's rendering of a call does not have that shape.
    """
    call = {"type": "function", "function": {"name": _PROBE, "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "probe"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c0", **call}]},
    ]
    tool = {"type": "function", "function": {"name": _PROBE, "parameters": {"type": "object", "properties": {}}}}
    try:
        reply = next(text for text, mine in fmt.segments(messages, [tool]) if mine)
    except Exception:  # a template that cannot render the probe: no guidance
        return None
    at = reply.find(_PROBE)
    if at < 0:
        return None
    begin, rest = reply[:at], reply[at + len(_PROBE) :]
    args_at = rest.find("{}")
    if args_at < 0 or "<" not in begin:
        return None
    prefix, end = rest[:args_at], rest[args_at + 2 :]  # the arguments object itself is the schema's
    close = end.find(">", end.find("</"))
    end = end[: close + 1] if "</" in end and close >= 0 else end.rstrip()
    return begin.lstrip(), prefix, end


class CallGrammar:
    """Compiled call grammars for one tokenizer and prompt format, one per tool list (cached).

    Args:
        tokenizer: The model's tokenizer.
        fmt: The prompt format (see `gym_mcp.policies.prompt.prompt_format`).
        vocab_size: The width of the model's logits (``config.vocab_size``), when it is larger
            than the tokenizer's vocabulary (padded embeddings; the extra ids are never allowed).

    Raises:
        DependencyMissing: xgrammar is not installed (the ``[train]`` extra has it).
        ValueError: The format does not write calls in a shape the grammar can follow (see
            `call_layout`).
    """

    def __init__(self, tokenizer: Any, fmt: Any, vocab_size: int | None = None) -> None:
        try:
            import xgrammar as xgr
        except ImportError as exc:
            raise DependencyMissing(
                "guided tool calls need xgrammar: pip install -e '.[train]'", extra="train"
            ) from exc
        layout = call_layout(fmt)
        if layout is None:
            raise ValueError(f"the {fmt.name} prompt format does not write calls as '<tag>{{\"name\": ...}}</tag>'")
        self.begin, self.arguments_prefix, self.end = layout
        self.trigger = self.begin[: self.begin.index(">") + 1] if ">" in self.begin else self.begin
        self._xgr = xgr
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size)
        self.vocab_size = int(info.vocab_size)
        self._compiler = xgr.GrammarCompiler(info)
        self._compiled: dict[str, Any] = {}

    def matcher(self, tools: Sequence[Mapping[str, Any]]) -> Any:
        """A fresh `xgrammar.GrammarMatcher` for one reply to a prompt showing ``tools``, or None (see `compiled`)."""
        compiled = self.compiled(tools)
        return None if compiled is None else self._xgr.GrammarMatcher(compiled)

    def logits_processor(self, tools: Sequence[Mapping[str, Any]]) -> Any:
        """A transformers ``LogitsProcessor`` for one ``generate`` call of one prompt that shows ``tools``, or None."""
        from xgrammar.contrib.hf import LogitsProcessor

        compiled = self.compiled(tools)
        return None if compiled is None else LogitsProcessor(compiled)

    def compiled(self, tools: Sequence[Mapping[str, Any]]) -> Any:
        """The compiled grammar of replies to a prompt that shows ``tools`` (compiled once per tool list).

        None when a tool's schema is one xgrammar cannot compile (a third-party server's schema
        may use JSON Schema that it does not support): replies to that prompt decode freely, and
        the environment checks their calls as it checks any.
        """
        from xgrammar.structural_tag import JSONSchemaFormat, StructuralTag, TagFormat, TriggeredTagsFormat

        key = json.dumps([t.get("function", t) for t in tools], sort_keys=True)
        if key not in self._compiled:
            tags = []
            for tool in tools:
                fn = tool.get("function", tool)
                schema = dict(fn.get("parameters") or {"type": "object", "properties": {}})
                schema.setdefault("additionalProperties", False)
                tags.append(
                    TagFormat(
                        begin=f"{self.begin}{fn['name']}{self.arguments_prefix}",
                        content=JSONSchemaFormat(json_schema=schema),
                        end=self.end,
                    )
                )
            tag = StructuralTag(format=TriggeredTagsFormat(triggers=[self.trigger], tags=tags, stop_after_first=True))
            try:
                self._compiled[key] = self._compiler.compile_structural_tag(tag)
            except Exception:  # xgrammar's errors for schemas it does not support vary by version
                self._compiled[key] = None
        return self._compiled[key]

    def mask(self, logits: Any, matchers: Sequence[Any]) -> Any:
        """Set to -inf, in place, the logits of the tokens that row ``i``'s matcher (``matchers[i]``) does not allow.

        Returns:
            The bitmask applied (``[rows, ceil(vocab / 32)]`` int32, xgrammar's layout; a row
            without a matcher is all ones), for a loss that must apply the same mask again.
        """
        xgr = self._xgr
        bitmask = xgr.allocate_token_bitmask(len(matchers), self.vocab_size)
        for row, matcher in enumerate(matchers):
            if matcher is not None:  # a row without one keeps every token (the bitmask starts all ones)
                matcher.fill_next_token_bitmask(bitmask, row)
        xgr.apply_token_bitmask_inplace(logits, bitmask.to(logits.device))
        return bitmask
