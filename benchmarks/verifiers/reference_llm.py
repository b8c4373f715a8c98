"""A loopback OpenAI-compatible endpoint that plays gym-mcp's reference policy as a "model".

verifiers' OpenEnv taskset needs a model behind ``/v1/chat/completions`` (streamed) to play each
episode. This endpoint is that model, without a model: it finds the task by the instruction in
the conversation's first observation, counts the assistant turns so far, and answers the task's
next reference call as a ``GymMCPAction`` JSON, then the final answer. Each reference episode
should then score 1.0.

It reads only the tasks JSONL (no gym-mcp import), so it runs in either venv::

    python reference_llm.py --tasks banking.jsonl --port 8612

It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MODEL = "gym-mcp-reference"


def load_tasks(path: Path) -> list[dict[str, Any]]:
    """The tasks of a gym-mcp tasks JSONL file.

    Args:
        path: The file ``gym-mcp synth`` wrote.

    Returns:
        One dict per non-empty line.
    """
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def text_of(message: dict[str, Any]) -> str:
    """A chat message's content as plain text (string content, or the text parts of a list)."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def find_task(tasks: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The task whose instruction the conversation's first user message carries.

    Args:
        tasks: The tasks to look in.
        messages: The conversation so far (OpenAI chat format).

    Returns:
        The task with the longest instruction found in that message, or None.
    """
    first = next((text_of(m) for m in messages if m.get("role") == "user"), "")
    with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
        # verifiers sends {"observation": {...}, "action_schema": {...}} as JSON
        first = str(json.loads(first)["observation"].get("text", first))
    found = [t for t in tasks if t.get("instruction") and t["instruction"] in first]
    return max(found, key=lambda t: len(t["instruction"]), default=None)


def next_action(tasks: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The reference policy's next action, as the JSON object a ``GymMCPAction`` takes.

    Args:
        tasks: The tasks the server was started with.
        messages: The conversation so far.

    Returns:
        The task's next reference call as ``{"type": "call_tool", ...}``, or, once they are all
        sent (or when no task matches), the final answer ``{"type": "message", ...}``.
    """
    task = find_task(tasks, messages)
    if task is None:
        return {"type": "message", "message": "I can't tell which task this is."}
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    calls = task.get("reference_calls") or []
    if turn < len(calls):
        call = calls[turn]
        return {"type": "call_tool", "tool_name": call["name"], "arguments": call.get("arguments", {})}
    return {"type": "message", "message": task.get("expected_answer") or "Done."}


def sse(reply: str, base: dict[str, Any]) -> Iterator[str]:
    """The server-sent events of one streamed completion: the reply, the stop, the usage, done."""
    chunk = {**base, "object": "chat.completion.chunk"}
    delta = {"role": "assistant", "content": reply}
    yield f"data: {json.dumps({**chunk, 'choices': [{'index': 0, 'delta': delta, 'finish_reason': None}]})}\n\n"
    yield f"data: {json.dumps({**chunk, 'choices': [{'index': 0, 'delta': {}, 'finish_reason': 'stop'}]})}\n\n"
    yield f"data: {json.dumps({**chunk, 'choices': [], 'usage': usage()})}\n\n"
    yield "data: [DONE]\n\n"


def usage() -> dict[str, int]:
    """Token counts: none are real here, so one each."""
    return {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def build_app(tasks: list[dict[str, Any]]) -> Starlette:
    """The Starlette app: ``POST /v1/chat/completions`` and ``GET /v1/models``.

    Args:
        tasks: The tasks whose reference calls it plays.

    Returns:
        An ASGI app; it answers SSE when the request asks ``stream: true``, JSON otherwise.
    """
    served = {"n": 0}

    async def completions(request: Request) -> Response:
        body = await request.json()
        reply = json.dumps(next_action(tasks, body.get("messages") or []))
        served["n"] += 1
        base = {"id": f"ref-{served['n']}", "created": int(time.time()), "model": body.get("model", MODEL)}
        if body.get("stream"):
            return StreamingResponse(sse(reply, base), media_type="text/event-stream")
        message = {"role": "assistant", "content": reply}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return JSONResponse({**base, "object": "chat.completion", "choices": [choice], "usage": usage()})

    async def models(_: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
        ]
    )


def main() -> None:
    """Serve the reference endpoint on 127.0.0.1 until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, required=True, help="the tasks JSONL the env server uses")
    parser.add_argument("--port", type=int, default=8612)
    args = parser.parse_args()
    uvicorn.run(build_app(load_tasks(args.tasks)), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
