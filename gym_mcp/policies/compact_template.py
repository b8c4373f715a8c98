"""gym-mcp's compact prompt as a Jinja chat template, for tokenizers that leave gym-mcp's code behind.

An adapter trained in the compact format (`gym_mcp.policies.prompt.CompactFormat`, the format of
models whose own template cannot render tools, SmolLM2's) only works when it is shown the prompt
it was trained on. `compact_chat_template` writes that prompt as a chat template, so plain
transformers renders it: ``tokenizer.apply_chat_template(messages, tools=tools,
add_generation_prompt=True)`` gives the text `render_prompt` gives for the same messages and tools
(the text rollouts and evaluation tokenized), and without the generation prompt the text SFT
trained on (the end-of-text token after the last reply, as `encode_conversation` appends it).

What the template cannot do as Python does:

- Escaping (`escape_markers`) is a left-to-right regular-expression pass; Jinja has no regular
  expressions, so the template breaks token-shaped text (``<|...|>``) with a scan over
  ``split('<|')`` and the literal markers (the call syntax and the tokenizer's own special
  tokens, written into the template) with ``replace``, longest first. The two agree except
  where one literal marker sits inside another one that is not at its start (none of the
  tokenizers we train on has such a pair).
- Call arguments given as a JSON string (OpenAI's form, and ``info["messages"]``'s) are written
  as they are; training re-encoded them with ``json.dumps`` (ASCII-escaped). The two agree for
  ASCII arguments written by ``json.dumps``; arguments given as objects (transformers' form)
  always agree.

`is_compact_template` recognizes the template (its first line names it), so
`gym_mcp.policies.prompt.prompt_format` renders an exported tokenizer with `CompactFormat`,
as training did, rather than through the template.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from gym_mcp.markers import CALL_MARKERS

__all__ = ["TEMPLATE_MARK", "compact_chat_template", "is_compact_template"]

TEMPLATE_MARK = "{#- gym-mcp compact prompt, version 1"
"""How every template `compact_chat_template` writes begins (see `is_compact_template`)."""

_HEAD = (
    TEMPLATE_MARK
    + """: gym_mcp.policies.prompt.render_prompt as a chat template.
Tools: one line each after the system prompt. Calls: <tool_call>{"name": ..., "arguments": ...}</tool_call>.
Tool results, user turns and tool descriptions have their markers broken (&lt;|...) as training showed them. -#}
"""
)

# The template body. `system`: gym-mcp's system prompt (gym_mcp.policies.prompt.SYSTEM); `literals`:
# pairs (marker, broken marker), longest first, written in by `compact_chat_template`.
_BODY = r"""
{%- macro esc(text) -%}
{%- set ns = namespace(out=text) -%}
{%- for open, close, bar in [['<|', '|>', '|'], ['<\uff5c', '\uff5c>', '\uff5c']] -%}
{%- if open in ns.out -%}
{%- set parts = ns.out.split(open) -%}
{%- set acc = namespace(out=parts[0]) -%}
{%- for part in parts[1:] -%}
{%- set at = part.find(close) -%}
{%- set name = part[:at] -%}
{%- set plain = bar not in name and '<' not in name and '>' not in name and name.split() | join('') == name -%}
{%- if at >= 1 and at <= 64 and plain -%}
{%- set acc.out = acc.out ~ '&lt;' ~ open[1:] ~ part -%}
{%- else -%}
{%- set acc.out = acc.out ~ open ~ part -%}
{%- endif -%}
{%- endfor -%}
{%- set ns.out = acc.out -%}
{%- endif -%}
{%- endfor -%}
{%- for marker, broken in literals -%}
{%- set ns.out = ns.out.replace(marker, broken) -%}
{%- endfor -%}
{{- ns.out -}}
{%- endmacro -%}
{%- macro signature(tool) -%}
{%- set fn = tool['function'] if tool['function'] is defined else tool -%}
{%- set params = fn['parameters'] or {} -%}
{%- set required = params['required'] or [] -%}
{%- set args = namespace(items=[]) -%}
{%- for name, schema in (params['properties'] or {}).items() -%}
{%- set kind = namespace(value=schema['type']) -%}
{%- if not kind.value -%}
{%- for option in schema['anyOf'] or [] -%}
{%- if not kind.value and option['type'] -%}
{%- set kind.value = option['type'] -%}
{%- endif -%}
{%- endfor -%}
{%- endif -%}
{%- set args.items = args.items + [name ~ ('' if name in required else '?') ~ ': ' ~ (kind.value or 'any')] -%}
{%- endfor -%}
{%- set lines = (fn['description'] or '').strip().splitlines() -%}
{{- esc(fn['name'] ~ '(' ~ args.items | join(', ') ~ ')' ~ (' - ' ~ lines[0] if lines else '')) -}}
{%- endmacro -%}
{%- set head = namespace(system=system, custom=none, last_reply=-1) -%}
{%- if tools -%}
{%- set lines = namespace(items=[]) -%}
{%- for tool in tools -%}
{%- set lines.items = lines.items + [signature(tool)] -%}
{%- endfor -%}
{%- set head.system = system ~ '\nTools:\n' ~ lines.items | join('\n') -%}
{%- endif -%}
{%- for message in messages -%}
{%- if message['role'] == 'system' -%}
{%- set head.custom = message['content'] or '' -%}
{%- elif message['role'] == 'assistant' -%}
{%- set head.last_reply = loop.index0 -%}
{%- endif -%}
{%- endfor -%}
{{- '<|system|>\n' ~ (head.custom ~ '\n' if head.custom is not none else '') ~ head.system ~ '\n' -}}
{%- for message in messages -%}
{%- set content = message['content'] or '' -%}
{%- if message['role'] == 'system' -%}
{%- elif message['role'] == 'assistant' -%}
{%- set calls = namespace(text='') -%}
{%- for call in message['tool_calls'] or [] -%}
{%- set fn = call['function'] if call['function'] is defined else call -%}
{%- set arguments = fn['arguments'] -%}
{%- if arguments is string -%}
{%- set arguments = arguments if arguments.strip() else '{}' -%}
{%- else -%}
{%- set arguments = (arguments or {}) | tojson(ensure_ascii=true) -%}
{%- endif -%}
{%- set call_name = fn['name'] | tojson(ensure_ascii=true) -%}
{%- set written = '{"name": ' ~ call_name ~ ', "arguments": ' ~ arguments ~ '}' -%}
{%- set calls.text = calls.text ~ '<tool_call>' ~ written ~ '</tool_call>' -%}
{%- endfor -%}
{{- '<|assistant|>\n' ~ (content ~ '\n' ~ calls.text if content and calls.text else content ~ calls.text) -}}
{%- if loop.index0 == head.last_reply and not add_generation_prompt and eos_token -%}
{{- eos_token -}}
{%- endif -%}
{{- '\n' -}}
{%- elif message['role'] == 'tool' -%}
{{- '<|tool|>\n' ~ esc(content | string) ~ '\n' -}}
{%- else -%}
{{- '<|user|>\n' ~ esc(content | string) ~ '\n' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|assistant|>\n' -}}
{%- endif -%}
"""


def _jinja_literal(value: object) -> str:
    """``value`` as a Jinja literal (JSON is one, for strings, lists and numbers)."""
    return json.dumps(value)


def compact_chat_template(markers: Iterable[str] = ()) -> str:
    """gym-mcp's compact prompt (`render_prompt`) as a Jinja chat template.

    Args:
        markers: The tokenizer's own special tokens (`tokenizer_markers`): escaped, as
            `CompactFormat` escapes them, in tool results, user turns and tool descriptions.

    Returns:
        The template text, for ``tokenizer.chat_template``.
    """
    from gym_mcp.policies.prompt import SYSTEM

    literals = sorted({*CALL_MARKERS, *(m for m in markers if m)}, key=lambda m: (-len(m), m))
    broken = [[m, ("&lt;" if m[0] == "<" else f"&#{ord(m[0])};") + m[1:]] for m in literals]
    settings = (
        "{%- set system = " + _jinja_literal(SYSTEM) + " -%}\n{%- set literals = " + _jinja_literal(broken) + " -%}"
    )
    return _HEAD + settings + _BODY


def is_compact_template(template: object) -> bool:
    """Whether ``template`` is one `compact_chat_template` wrote."""
    return isinstance(template, str) and template.startswith(TEMPLATE_MARK)
