"""State-grounded task synthesis (importable as ``gym_mcp.synth``); grown by later issues."""
