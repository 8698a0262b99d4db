// A real MCP client (the official TypeScript SDK) driving `memsidecar mcp` over stdio.
// Usage: node client.mjs <java> <jar> <mcp args...>; prints one JSON object of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [java, jar, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: java,
  args: ["-jar", jar, "mcp", ...args],
  stderr: "inherit",
});
const client = new Client({ name: "memsidecar-e2e", version: "1.0.0" });
await client.connect(transport);

const call = (name, args) => client.callTool({ name, arguments: args });
const listed = await client.listTools();
const seen = {
  server: client.getServerVersion(),
  tools: Object.fromEntries(listed.tools.map((t) => [t.name, t.inputSchema])),
  remembered: await call("remember", { content: "Our deploy day is Tuesday.", workspace_id: "mcp" }),
  recalled: await call("recall", { query: "when do we deploy?", workspace_id: "mcp" }),
  blank: await call("recall", { query: "", workspace_id: "mcp" }),
  rule: await call("put_tool_rule", { tool_name: "email", rule: "Never email Sarah.", workspace_id: "mcp" }),
  denied: await call("check_tool_call", {
    tool_name: "email",
    arguments_json: JSON.stringify({ to: "sarah@example.com", subject: "hi" }),
    workspace_id: "mcp",
  }),
  begun: await call("begin_run", { input: "When do we deploy?", run_id: "r1", workspace_id: "mcp" }),
};
console.log(JSON.stringify(seen));
await client.close();
