"""Rewards: functions of a finished episode.

A reward function takes the `Episode` (the task, every call with its outcome, the final
answer, the final state's fingerprint) and returns a float. The environment calls it once,
when the episode ends; intermediate steps get 0. The default is `state_match`.

Besides `state_match`, this package holds the terms of the two recipes gym-mcp implements,
each a small pure function of the episode (no judge model):

* `success`: the final state matches the task's expected fingerprint and, when the task has
  an expected answer, the final answer holds its values (`answer_match`).
* `validity`, `coverage`, `name_precision`, `argument_agreement`, `abstention` and
  `efficiency`: PROVE's process terms (see ``shared/PAPERS.md``).

`CompositeReward` combines them with weights: `CompositeReward.prove` is PROVE's weighted
sum, `CompositeReward.mua_rl` MUA-RL's binary success, and `CompositeReward.grounded` the
training reward grounded in the live state: `success` (the task's verifier) picks a band,
``[0.5, 1]`` for a pass and ``[0, 0.45]`` for a failure, and PROVE's composite places the
episode inside it, so no failing episode ever outscores a passing one while waste and near
misses are still ranked. PROVE's sum alone pays up to 1.0 for a run that ends in the wrong
state. Its `CompositeReward.terms` (or `all_terms` for any other reward function) lists every
term, and the environment puts them in ``info["reward_terms"]`` at the end of an episode.

Dialogue tasks (a task with a simulated user) add `asked_when_needed`, `asked_needlessly` and
`unconfirmed_actions` (module `dialogue`); `success` requires the first and no unconfirmed action.

Modules: `episode` (what reward functions see), `outcome` (final state and answer), `prove`
(PROVE's process terms and the adaptive efficiency term), `composite` (the weighted sums).
"""

from __future__ import annotations

from gym_mcp.episode import CallRecord, Episode, RewardFn, UserTurn
from gym_mcp.rewards.composite import CompositeReward, all_terms
from gym_mcp.rewards.dialogue import asked_needlessly, asked_when_needed, unconfirmed_actions
from gym_mcp.rewards.outcome import answer_match, completion, state_match, success
from gym_mcp.rewards.prove import (
    abstention,
    align_calls,
    argument_agreement,
    coverage,
    efficiency,
    efficiency_budget,
    name_precision,
    validity,
)

__all__ = [
    "CallRecord",
    "CompositeReward",
    "Episode",
    "RewardFn",
    "UserTurn",
    "abstention",
    "align_calls",
    "all_terms",
    "answer_match",
    "argument_agreement",
    "asked_needlessly",
    "asked_when_needed",
    "completion",
    "coverage",
    "efficiency",
    "efficiency_budget",
    "name_precision",
    "state_match",
    "success",
    "unconfirmed_actions",
    "validity",
]
