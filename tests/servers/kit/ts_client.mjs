// A TypeScript-SDK MCP client (the one the MCP inspector uses): start a server over stdio, print what
// the handshake said (serverInfo) and what one tool call returned, as one JSON line.
// Usage: node ts_client.mjs TOOL ARGUMENTS_JSON COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, argsJson, command, ...args] = process.argv.slice(2);
const client = new Client({ name: "gym-mcp-tests", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify({ serverInfo: client.getServerVersion(), result }));
await client.close();
