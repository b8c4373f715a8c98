"""Every Python example in the documentation runs as a test (Sybil).

Each page's ```python blocks run in order in one namespace, in a fresh temporary folder (files
an example writes land there). A block preceded by ``<!-- skip: next -->`` is shown but not run
(it needs a model endpoint, a GPU or minutes of training); an
``<!-- invisible-code-block: python -->`` comment runs setup code a reader does not need to see.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser


@pytest.fixture(scope="module")
def docs_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder a page's examples run in (one per page: a file one example writes, the next reads)."""
    folder = tmp_path_factory.mktemp("docs")
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(before)


def _close_envs(namespace: dict[str, object]) -> None:
    """Close the environments a page left open (they give their servers back to the pool).

    Only environments: a page may hold a live server's own parts (``state = env.unwrapped.state``),
    which belong to the server and must stay open when it goes back to the pool.
    """
    for value in namespace.values():
        if isinstance(value, gym.Env | gym.vector.VectorEnv):
            with contextlib.suppress(Exception):
                value.close()


pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser()],
    patterns=["*.md"],
    fixtures=["docs_folder"],
    teardown=_close_envs,
).pytest()
