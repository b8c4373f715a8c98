"""State-grounded task synthesis (importable as ``gym_mcp.synth``).

Tasks are grown from what is actually in a server's state, executed on the live server, and
kept only when a replay from a fresh reset reproduces the same final state::

    from gym_mcp.synth import SynthConfig, synthesize, write_outputs

    result = synthesize("banking", SynthConfig(n=500, seed=0))
    write_outputs(result, "banking.jsonl")      # + banking.report.txt / .png

Command line: ``gym-mcp synth banking -n 500 -o banking.jsonl``.
"""

from gym_mcp.synth.many import synthesize_many
from gym_mcp.synth.pipeline import SynthConfig, SynthError, SynthResult, synthesize, write_outputs
from gym_mcp.synth.statecheck import ResetCheck, check_reset

__all__ = [
    "ResetCheck",
    "SynthConfig",
    "SynthError",
    "SynthResult",
    "check_reset",
    "synthesize",
    "synthesize_many",
    "write_outputs",
]
