"""TRL interop: gym-mcp environments as TRL ``GRPOTrainer`` environments (``environment_factory``).

TRL (>= 1.16) can train a model that calls tools inside its rollouts. Its contract, read from
``trl/trainer/grpo_trainer.py``:

- ``environment_factory`` is a zero-argument callable; TRL calls it once at start-up to discover
  the tools, then once per concurrent rollout (instances are pooled and reused across batches).
- ``reset(**row)`` is called with every column of the dataset row before generation; a string it
  returns is appended to the row's last user message (here: the task's instruction).
- Every public method of the environment's *class*, except ``reset`` and ``get_reward``, is a
  tool: TRL renders its schema from the type hints and Google docstring
  (`transformers.utils.get_json_schema`), parses the model's tool calls with the tokenizer's
  response template, calls ``method(**arguments)`` and feeds the returned string back as the
  tool message.
- ``get_reward()`` (no arguments) is called once per finished rollout; it becomes a reward
  source of weight 1 named after the class, next to any ``reward_funcs``.

`MCPToolEnv` maps this onto one gym-mcp environment: tools are methods built from the live
server's ``info["tools"]`` schemas, each call is an ``env.step({"name": ..., "arguments": ...})``
on the live server (bad arguments come back as the error observation, never as an exception),
and ``get_reward`` closes the episode with a final answer if it is still open and returns the
environment's reward. Because TRL discovers tools on the class, the methods live on a subclass
made per tool list (`tool_env_class`).

TRL renders prompts with the tokenizer's chat template, not with gym-mcp's compact prompt
(`gym_mcp.policies.prompt.render_prompt`); `ensure_tool_chat_template` installs TRL's ChatML +
Hermes ``<tool_call>`` template (Qwen2.5's, with gym-mcp's system prompt in place of Qwen's) on
tokenizers whose own template cannot render tool calls. TRL is optional: the helpers that need
it raise `ConfigError` with an install hint.

TRL puts what a tool method returns into the prompt as it is, so the methods return the result
escaped as gym-mcp's own prompts render it (`gym_mcp.policies.prompt.escape_markers`: no
``<|im_start|>`` or ``<tool_call>`` from a server reaches the template raw); the same goes for
the instruction ``reset`` returns and the tool descriptions. ``history`` and the environment's
records keep the raw results.

Example::

    factory = environment_factory("gym_mcp/Banking-v0", tasks)
    trainer = GRPOTrainer(model=model, processing_class=ensure_tool_chat_template(tokenizer),
                          args=GRPOConfig(...), train_dataset=tasks_dataset(tasks),
                          reward_funcs=[record_final_answers], environment_factory=factory)
"""

from __future__ import annotations

import importlib
import inspect
import json
import keyword
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Union

import gymnasium as gym

from gym_mcp.errors import ConfigError, DependencyMissing, GymMCPError
from gym_mcp.policies.prompt import escape_markers
from gym_mcp.tasks import Task

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "MCPToolEnv",
    "ToolEnvFactory",
    "ensure_tool_chat_template",
    "environment_factory",
    "record_final_answers",
    "tasks_dataset",
    "tool_env_class",
]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with tools. Call the tools you need to do what the user asks; "
    "when the task is done, answer in plain text."
)
"""The system message `tasks_dataset` puts before each (empty) user turn."""

_RESERVED = frozenset(
    {"reset", "get_reward", "wrap", "tool_schemas", "env", "task_id", "episodes", "history", "pending_answer"}
    | {"reward", "reward_terms"}
)
"""Names a tool method cannot take: TRL's two hooks and `MCPToolEnv`'s own attributes."""
_INSTALL_HINT = "TRL interop needs trl (and datasets): pip install 'trl>=1.16'"


def _optional(module: str) -> Any:
    """Import an optional dependency (trl, datasets) or raise `DependencyMissing` with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DependencyMissing(_INSTALL_HINT, extra="trl") from exc


class MCPToolEnv:
    """One gym-mcp environment seen through TRL's environment contract.

    Do not instantiate this base class for TRL: it has no tools. Use `tool_env_class` (or
    `MCPToolEnv.wrap`, or `environment_factory`) for a subclass whose methods are the server's
    tools. The only public methods are ``reset``, ``get_reward`` and the tools (TRL turns every
    other public method into a tool); bookkeeping is in attributes.

    Args:
        env: A gym-mcp environment (``gym.make("gym_mcp/...")``); the wrapper steps it, and
            closing it stays with the caller (or the factory).
        tasks: Tasks that a row's ``task_id`` may name, besides those the environment holds.
        final_answer: The final answer ``get_reward`` sends when the episode is still open and
            `record_final_answers` gave none.

    Attributes:
        env: The wrapped environment.
        task_id: The current episode's task id (None before the first reset).
        episodes: How many episodes ``reset`` began.
        history: The current episode's tool calls as ``(name, arguments, observation)``.
        pending_answer: The final answer ``get_reward`` will send (see `record_final_answers`).
        reward: The finished episode's reward (None while it is open).
        reward_terms: The finished episode's ``info["reward_terms"]``.
    """

    tool_schemas: tuple[dict[str, Any], ...] = ()
    """The OpenAI function schemas the tool methods were built from (set on subclasses)."""

    def __init__(self, env: gym.Env[str, Any], tasks: Iterable[Task] = (), *, final_answer: str = "Done.") -> None:
        self.env = env
        self._tasks = {t.id: t for t in tasks}
        self._final_answer = final_answer
        self.task_id: str | None = None
        self.episodes = 0
        self.history: list[tuple[str, dict[str, Any], str]] = []
        self.pending_answer: str | None = None
        self.reward: float | None = None
        self.reward_terms: dict[str, float] = {}

    @classmethod
    def wrap(
        cls,
        env: gym.Env[str, Any],
        tasks: Iterable[Task] = (),
        *,
        only: Sequence[str] | None = None,
        brief: bool = False,
        final_answer: str = "Done.",
    ) -> MCPToolEnv:
        """Wrap ``env`` in a `tool_env_class` built from its own tools.

        Args:
            env: A gym-mcp environment.
            tasks: Tasks a row's ``task_id`` may name.
            only: Expose only these tools (default: all).
            brief: Keep only the first line of each tool description (shorter prompts).
            final_answer: See the class.
        """
        tools = env.unwrapped.tools  # type: ignore[attr-defined]
        return tool_env_class(tools, only=only, brief=brief)(env, tasks, final_answer=final_answer)

    def reset(self, **kwargs: Any) -> str:
        """Start an episode on the dataset row's task and return its instruction.

        TRL passes every column of the row. ``task`` (a task's JSON, as `tasks_dataset` writes it,
        or a dict) wins; otherwise ``task_id`` names a task given to the wrapper or held by the
        environment; with neither, the environment draws one of its tasks.
        """
        options: dict[str, Any] = {}
        task = kwargs.get("task")
        task_id = kwargs.get("task_id")
        if isinstance(task, str) and task:
            options["task"] = Task.from_dict(json.loads(task))
        elif isinstance(task, Mapping):
            options["task"] = Task.from_dict(task)
        elif task_id is not None and str(task_id) in self._tasks:
            options["task"] = self._tasks[str(task_id)]
        elif task_id is not None:
            options["task_id"] = str(task_id)
        observation, info = self.env.reset(options=options)
        self.task_id = str(info.get("task_id"))
        self.episodes += 1
        self.history = []
        self.pending_answer = None
        self.reward = None
        self.reward_terms = {}
        return escape_markers(str(observation))

    def get_reward(self) -> float:
        """The episode's reward; an episode still open is first closed with a final answer."""
        if self.reward is None:
            answer = self.pending_answer if self.pending_answer is not None else self._final_answer
            # a structured message: the answer's text is never parsed for tool calls
            self._step({"role": "assistant", "content": answer, "tool_calls": []})
        return float(self.reward or 0.0)

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Run one tool call as an environment step; return the observation (errors included)."""
        if self.reward is not None:
            return "Error: the episode is over; no more tool calls."
        observation = self._step({"name": name, "arguments": arguments})
        self.history.append((name, dict(arguments), observation))
        return escape_markers(observation)  # TRL renders it into the prompt as it is

    def _step(self, action: Any) -> str:
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except GymMCPError as exc:  # e.g. a server that could not be restarted
            return f"Error: {exc}"
        if terminated or truncated:
            self.reward = float(reward)
            self.reward_terms = dict(info.get("reward_terms", {}))
        return str(observation)


def tool_env_class(
    tools: Sequence[Mapping[str, Any]],
    *,
    only: Sequence[str] | None = None,
    brief: bool = False,
    name: str = "MCPToolEnv",
) -> type[MCPToolEnv]:
    """A subclass of `MCPToolEnv` with one method per tool, as TRL reads them.

    Each method has a keyword-only signature typed from the tool's JSON schema (string -> str,
    integer -> int, number -> float, boolean -> bool, array -> list, object -> dict, anyOf ->
    a union, enum -> Literal; optional arguments default to None), a Google docstring (the tool's
    description and one line per argument), and returns the observation string. Arguments the
    model leaves out (or sets to None where the schema does not allow null) are not sent: the
    server applies its defaults. Wrong names or types reach the environment, which answers with
    an error observation.

    Args:
        tools: OpenAI function schemas (``info["tools"]``).
        only: Build methods for these tools only.
        brief: Keep only the first line of each description.
        name: The class name (TRL logs the ``get_reward`` column under it).

    Raises:
        ConfigError: A tool or argument name cannot be a Python method or parameter name, or
            clashes with ``reset``/``get_reward``, or ``only`` names an unknown tool.
    """
    chosen = [dict(t) for t in tools if only is None or t.get("function", t)["name"] in set(only)]
    if only is not None:
        missing = sorted(set(only) - {t.get("function", t)["name"] for t in chosen})
        if missing:
            raise ConfigError(f"unknown tool(s) in only=: {', '.join(missing)}")
    namespace: dict[str, Any] = {"tool_schemas": tuple(chosen), "__module__": __name__}
    for tool in chosen:
        method = _tool_method(tool.get("function", tool), brief=brief)
        namespace[method.__name__] = method
    return type(name, (MCPToolEnv,), namespace)


def _tool_method(fn: Mapping[str, Any], *, brief: bool) -> Callable[..., str]:
    tool_name = str(fn["name"])
    if not tool_name.isidentifier() or keyword.iskeyword(tool_name) or tool_name.startswith("_"):
        raise ConfigError(f"tool {tool_name!r} is not a valid method name; rename it (rename_tools=) or hide it")
    if tool_name in _RESERVED:
        raise ConfigError(f"tool {tool_name!r} clashes with MCPToolEnv.{tool_name}; rename it (rename_tools=)")
    params = fn.get("parameters") or {}
    required = set(params.get("required") or [])
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    annotations: dict[str, Any] = {}
    arg_docs: list[str] = []
    unset_if_none: set[str] = set()  # optional arguments the server does not accept as null
    for arg, schema in (params.get("properties") or {}).items():
        if not arg.isidentifier() or keyword.iskeyword(arg) or arg == "self":
            raise ConfigError(f"tool {tool_name!r}: argument {arg!r} cannot be a Python parameter name")
        hint = _python_type(schema)
        optional = arg not in required
        if optional and not _accepts_none(hint):
            unset_if_none.add(arg)
        default = None if optional else inspect.Parameter.empty
        parameters.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        annotations[arg] = hint
        description = " ".join(str(schema.get("description") or f"The {arg} argument.").split())
        if optional and schema.get("default") is not None:
            description += f" Default: {json.dumps(schema['default'])}."
        arg_docs.append(f"    {arg}: {escape_markers(description)}")
    description = escape_markers(str(fn.get("description") or tool_name).strip())
    if brief:
        description = description.splitlines()[0].strip()
    doc = description
    if arg_docs:
        doc += "\n\nArgs:\n" + "\n".join(arg_docs)
    doc += "\n\nReturns:\n    The tool's result as text; an error starts with 'Error'."

    def tool(self: MCPToolEnv, /, **arguments: Any) -> str:
        # only the arguments the caller gave are sent (None for an optional non-nullable one means
        # "not given"): the server applies its own defaults
        given = {k: v for k, v in arguments.items() if not (v is None and k in unset_if_none)}
        return self._call_tool(tool_name, given)

    tool.__name__ = tool.__qualname__ = tool_name
    tool.__doc__ = doc
    tool.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    tool.__annotations__ = {**annotations, "return": str}
    return tool


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def _python_type(schema: Mapping[str, Any]) -> Any:
    """The Python type hint of a JSON schema (what `get_json_schema` turns back into the schema)."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        values = [v for v in schema["enum"] if isinstance(v, str | int | float | bool) or v is None]
        if values:
            return Literal[tuple(values)]
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list) and options:
        return _union([_python_type(o) for o in options if isinstance(o, Mapping)])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([_JSON_TYPES.get(str(k), Any) for k in kind])
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        item = _python_type(schema["items"])
        return list if item is Any else list[item]  # type: ignore[valid-type]
    return _JSON_TYPES.get(str(kind), Any) if kind is not None else Any


def _union(hints: list[Any]) -> Any:
    unique = list(dict.fromkeys(hints))
    if not unique or Any in unique:
        return Any
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007


def _accepts_none(hint: Any) -> bool:
    return hint is Any or hint is type(None) or type(None) in getattr(hint, "__args__", ())


class ToolEnvFactory:
    """A TRL ``environment_factory``: each call returns a new `MCPToolEnv` on a new environment.

    Made by `environment_factory`. Every instance shares one `tool_env_class` (TRL matches
    ``get_reward`` by exact type).

    Attributes:
        instances: Every environment made so far (TRL pools and reuses them).
        cls: The shared tool class (None until the first call).
    """

    def __init__(
        self,
        env_id: str,
        tasks: Sequence[Task],
        only: Sequence[str] | None,
        brief: bool,
        final_answer: str,
        make_kwargs: dict[str, Any],
        perturb: Any = None,
        openenv_url: str | None = None,
    ) -> None:
        self.perturb = perturb
        self.openenv_url = openenv_url
        self.env_id = env_id
        self.tasks = list(tasks)
        self.only = only
        self.brief = brief
        self.final_answer = final_answer
        self.make_kwargs = make_kwargs
        self.cls: type[MCPToolEnv] | None = None
        self.instances: list[MCPToolEnv] = []

    def __call__(self) -> MCPToolEnv:
        """A new environment, wrapped (a session of the OpenEnv server when the factory has a URL)."""
        env: gym.Env[str, Any]
        if self.openenv_url is not None:
            from gym_mcp.openenv.remote import OpenEnvGymEnv

            env = OpenEnvGymEnv(self.openenv_url)
        else:
            env = gym.make(self.env_id, tasks=self.tasks or None, **self.make_kwargs)
        if self.perturb is not None:
            from gym_mcp.wrappers import Perturb

            env = Perturb(env, _trl_mix(self.perturb), seed=len(self.instances))
        if self.cls is None:
            tools = env.unwrapped.tools  # type: ignore[attr-defined]
            self.cls = tool_env_class(tools, only=self.only, brief=self.brief, name=_class_name(self.env_id))
        instance = self.cls(env, self.tasks, final_answer=self.final_answer)
        self.instances.append(instance)
        return instance

    def close(self) -> None:
        """Close every environment this factory made (their servers go back to the warm pool)."""
        for instance in self.instances:
            instance.env.close()
        self.instances.clear()


def _trl_mix(spec: Any) -> Any:
    """The mix for TRL: its tool methods are fixed when the class is made, so the tool list cannot change.

    Raises:
        ConfigError: The mix holds a kind that changes the tools (the action and metadata families).
    """
    from gym_mcp.wrappers import Mix, mix

    chosen: Mix = spec if isinstance(spec, Mix) else mix(spec)
    fixed = [p.kind for p in chosen.perturbations if p.family in ("action", "metadata")]
    if fixed:
        raise ConfigError(
            f"perturb: TRL's tool methods are fixed when its environment class is made, so {', '.join(fixed)} "
            "cannot change them per episode; use the observation and transition families (e.g. 'transition')"
        )
    for perturbation in chosen.perturbations:  # descriptions are read once by TRL: perturb the instruction only
        if hasattr(perturbation, "on_descriptions"):
            perturbation.on_descriptions = False
    return chosen


def _class_name(env_id: str) -> str:
    base = re.sub(r"[^0-9A-Za-z]", "", env_id.split("/")[-1].split("-v")[0].title()) or "MCP"
    return f"{base}ToolEnv"


def _methods_render_as_tools() -> bool:
    """Whether this transformers renders a bound method as a tool in a chat template.

    TRL's ``environment_factory`` hands the environment's bound methods to the chat template as
    its tools; transformers before 5.2 accepts plain functions only ("Tools should either be a
    JSON schema, or a callable function ..."). Probed on a one-line template, not guessed from
    the version.
    """
    from transformers.utils.chat_template_utils import render_jinja_template

    class Probe:
        def probe(self, x: int) -> int:
            """A probe.

            Args:
                x: A number.
            """
            return x

    try:
        render_jinja_template([[{"role": "user", "content": "hi"}]], tools=[Probe().probe], chat_template="{{ tools }}")
    except ValueError:
        return False
    return True


def environment_factory(
    env_id: str,
    tasks: Iterable[Task] = (),
    *,
    only: Sequence[str] | None = None,
    brief: bool = False,
    final_answer: str = "Done.",
    perturb: Any = None,
    openenv_url: str | None = None,
    **make_kwargs: Any,
) -> ToolEnvFactory:
    """A TRL ``environment_factory`` over ``gym.make(env_id, tasks=tasks, **make_kwargs)``.

    Each call makes a new environment (in-process servers come from gym-mcp's warm pool) and
    wraps it in one `tool_env_class` shared by all calls; ``.instances`` lists them and
    ``.close()`` closes them.

    Args:
        env_id: A registered gym-mcp id, e.g. ``"gym_mcp/Banking-v0"``.
        tasks: The tasks (rows name them by ``task_id`` or carry their JSON).
        only: Expose only these tools to the model.
        brief: Keep only the first line of each tool description (shorter prompts).
        final_answer: What ``get_reward`` answers for the model when the episode is still open.
        perturb: A perturbation mix for every episode (domain randomization; see
            `gym_mcp.wrappers.mix`): a name (``"transition"``, ``"observation"``), a dict, a TOML
            path or a `Mix`. TRL fixes the tool methods once, so the mix may hold only kinds that
            leave the tool list alone (observation: the instruction only; transition).
        openenv_url: Play every rollout on this OpenEnv server of the environment (``gym-mcp
            serve-openenv NAME``), one WebSocket session per TRL environment, instead of in this
            process. The server holds the environment's settings (tasks, reward, user, mix).
        **make_kwargs: More ``gym.make`` arguments (``reward=``, ``max_steps=``, ``transport=``...).

    Raises:
        ConfigError: The mix is unknown, or holds kinds that change the tools; or ``openenv_url``
            with ``gym.make`` arguments or a mix (those are the server's).
        DependencyMissing: transformers is older than 5.2: TRL passes the environment's bound
            methods as tools, which older chat-template code rejects in TRL's first rollout.
    """
    if not _methods_render_as_tools():
        import transformers

        raise DependencyMissing(
            f"TRL's environment_factory needs transformers>=5.2 (installed: {transformers.__version__}): TRL hands "
            "the environment's methods to the chat template as tools, and older transformers accepts plain "
            "functions only; pip install 'transformers>=5.2'",
            extra="trl",
        )
    if openenv_url is not None and (make_kwargs or perturb is not None):
        raise ConfigError(
            "with openenv_url the server holds the environment's settings: pass reward, max_steps, perturb ... "
            "to gym-mcp serve-openenv, not here"
        )
    if perturb is not None:
        _trl_mix(perturb)  # a bad mix fails here, not in TRL's first rollout
    return ToolEnvFactory(env_id, list(tasks), only, brief, final_answer, dict(make_kwargs), perturb, openenv_url)


def tasks_dataset(tasks: Iterable[Task], *, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> Any:
    """A `datasets.Dataset` of prompts for TRL, one row per task.

    Columns: ``prompt`` (a conversational prompt: the system message, then an empty user turn
    that ``reset`` fills with the instruction), ``task_id`` and ``task`` (the task as JSON, so a
    row is self-contained).

    Raises:
        ConfigError: ``datasets`` (installed with trl) is missing.
    """
    dataset_cls = _optional("datasets").Dataset
    head = [{"role": "system", "content": system_prompt}] if system_prompt else []
    rows = [
        {
            "prompt": [*head, {"role": "user", "content": ""}],
            "task_id": t.id,
            "task": json.dumps(t.to_dict(), sort_keys=True),
        }
        for t in tasks
    ]
    if not rows:
        raise ConfigError("tasks_dataset needs at least one task")
    return dataset_cls.from_list(rows)


def record_final_answers(
    completions: Sequence[Any], environments: Sequence[Any] | None = None, **kwargs: Any
) -> list[float | None]:
    """A reward function that scores nothing: it hands each rollout's final text to its environment.

    TRL does not show an environment the model's closing text, and tasks with an expected
    answer need it. Put this in ``reward_funcs`` (TRL calls reward functions in order, before
    the environments' ``get_reward``); it returns None for every rollout (no reward of its own).
    """
    for completion, environment in zip(completions, environments or (), strict=False):
        if isinstance(environment, MCPToolEnv):
            environment.pending_answer = _final_text(completion)
    return [None] * len(completions)


def _final_text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or [])):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return str(message.get("content") or "")
        if isinstance(message, Mapping) and message.get("role") == "tool":
            return ""  # the rollout ended on a tool result: no answer
    return ""


_QWEN_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
"""The default system prompt of Qwen2.5's template: never a gym-mcp model's (see `ensure_tool_chat_template`)."""


def ensure_tool_chat_template(tokenizer: Any, *, system_prompt: str = DEFAULT_SYSTEM_PROMPT) -> Any:
    """Give ``tokenizer`` a chat template that renders tool calls, if its own cannot.

    TRL needs one (and a response template to parse the calls). A tokenizer whose template
    cannot render a ``user -> assistant(tool_calls) -> tool`` exchange gets TRL's copy of the
    Qwen2.5 template: ChatML turns with Hermes ``<tool_call>{json}</tool_call>`` calls, the
    format gym-mcp's parser reads, with ``system_prompt`` where Qwen's own default ("You are
    Qwen, created by Alibaba Cloud") stood. A conversation with a system message renders as
    under Qwen2.5's template; one without renders ``system_prompt``, the system message
    `tasks_dataset` gives every training prompt, so a tokenizer saved with the adapter
    (``trainer.save_model``) shows what training showed, never another model's identity.
    Returns the tokenizer.

    Args:
        tokenizer: A transformers tokenizer.
        system_prompt: The system prompt of a conversation without one (pass the one given to
            `tasks_dataset`).

    Raises:
        ConfigError: trl is missing.
    """
    templates = _optional("trl.chat_template_utils")
    if not templates.supports_tool_calling(tokenizer):
        tokenizer.chat_template = templates.qwen2_5_chat_template
        # TRL picks the parser of a model's tool calls by the template's exact text: let it pick
        # Qwen2.5's now (GRPOTrainer keeps a parser already set), then change the default prompt
        templates.add_response_schema(tokenizer)
        literal = system_prompt.replace("\\", "\\\\").replace("'", "\\'")  # inside Jinja '...' strings
        tokenizer.chat_template = tokenizer.chat_template.replace(_QWEN_SYSTEM, literal)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
