"""What sits between the agent and the server: tool views, and perturbations (see `perturb`)."""

from __future__ import annotations

from gym_mcp.wrappers.perturb import KINDS, MIXES, Mix, Perturb, mix
from gym_mcp.wrappers.perturbation import FAMILIES, TRANSIENT_MARKER, EpisodeContext, Injection, Perturbation
from gym_mcp.wrappers.static import (
    CostNotes,
    DistractorTools,
    DuplicateTools,
    MisleadingDescriptions,
    Paraphrase,
    RenamedParams,
    RenamedTools,
    StrippedEnums,
    Typos,
)
from gym_mcp.wrappers.transition import (
    Latency,
    MalformedResults,
    PaginatedLists,
    ReorderedLists,
    SchemaDrift,
    StaleReads,
    Timeouts,
    TransientErrors,
    TruncatedResults,
)

__all__ = [
    "FAMILIES",
    "KINDS",
    "MIXES",
    "TRANSIENT_MARKER",
    "CostNotes",
    "DistractorTools",
    "DuplicateTools",
    "EpisodeContext",
    "Injection",
    "Latency",
    "MalformedResults",
    "MisleadingDescriptions",
    "Mix",
    "PaginatedLists",
    "Paraphrase",
    "Perturb",
    "Perturbation",
    "RenamedParams",
    "RenamedTools",
    "ReorderedLists",
    "SchemaDrift",
    "StaleReads",
    "StrippedEnums",
    "Timeouts",
    "TransientErrors",
    "TruncatedResults",
    "Typos",
    "mix",
]
