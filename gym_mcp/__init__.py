"""gym-mcp: Gymnasium environments over live MCP servers."""
