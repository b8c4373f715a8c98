"""LoRA training on synthesized tasks (importable as ``gym_mcp.train``); grown by later issues."""
