"""Small MCP servers written for tests: real stdio servers that behave as third-party ones do."""
