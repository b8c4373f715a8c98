"""Envs over HTTP send the headers a server asks for (a bearer token), read from the environment."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gym_mcp import MCPEnv, SQLiteState
from gym_mcp.errors import ConfigError, ServerStartError
from gym_mcp.live.sources import ExternalSource
from gym_mcp.specs import load_spec


def _source(bank_db: Path, **kwargs: object) -> ExternalSource:
    return ExternalSource(
        "bank",
        command=[sys.executable, "-m", "gym_mcp.servers.banking", "--transport", "http", "--port", "{port}"],
        url="http://127.0.0.1:{port}/mcp",
        env={"GYM_MCP_TOKEN": "s3cret-token-1", "GYM_MCP_DB_URL": "sqlite:///{state}"},
        state=SQLiteState(bank_db),
        **kwargs,  # type: ignore[arg-type]
    )


def test_headers_carry_a_bearer_token_from_the_environment(bank_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANK_TOKEN", "s3cret-token-1")
    env = MCPEnv(_source(bank_db, headers={"Authorization": "Bearer ${BANK_TOKEN}"}))
    try:
        env.reset(seed=0)
        obs, *_ = env.step({"name": "get_balance", "arguments": {"account_id": "ACC-1001"}})
        assert not obs.startswith("Error"), obs
    finally:
        env.close()


def test_without_the_token_the_start_fails_clearly(bank_db: Path) -> None:
    with pytest.raises(
        ServerStartError, match=r"answered HTTP 401 \(it wants credentials; we sent no Authorization header"
    ):
        MCPEnv(_source(bank_db))


def test_a_header_naming_an_unset_variable_is_refused_at_once(bank_db: Path) -> None:
    with pytest.raises(ConfigError, match=r"names \$\{NO_SUCH_TOKEN_VAR\}, which is not set"):
        _source(bank_db, headers={"Authorization": "Bearer ${NO_SUCH_TOKEN_VAR}"})


def test_a_spec_file_gives_headers_sandbox_and_network(tmp_path: Path) -> None:
    spec = tmp_path / "srv.toml"
    spec.write_text(
        'name = "srv"\ncommand = ["python", "-m", "x"]\nsandbox = "none"\nnetwork = true\n'
        '[headers]\nAuthorization = "Bearer ${SOME_TOKEN}"\n'
    )
    loaded = load_spec(spec)
    assert loaded.headers == {"Authorization": "Bearer ${SOME_TOKEN}"}  # expanded at launch, not saved
    assert loaded.network is True and loaded.sandbox == "none"
    assert loaded.to_dict()["headers"] == {"Authorization": "Bearer ${SOME_TOKEN}"}
