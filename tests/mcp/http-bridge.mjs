// A bridge that serves `sessionscope mcp` (a stdio server) over MCP's Streamable HTTP transport,
// for tools that speak only HTTP, such as the MCP conformance suite: each HTTP session starts its
// own server process, and every JSON-RPC message is passed through unchanged, both ways (the
// official TypeScript SDK's two transports, joined).
//
//   node tests/mcp/http-bridge.mjs <port> <sessionscope binary> [mcp arguments…]
//
// It prints `listening on http://127.0.0.1:<port>/mcp` once it answers (port 0: any free one). It
// listens on this machine only, and refuses a request whose Host or Origin names another.

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [port, binary, ...args] = process.argv.slice(2);
const sessions = new Map();

/** A new HTTP session, joined to a new server process. */
async function open() {
  const stdio = new StdioClientTransport({ command: binary, args: ["mcp", ...args], env: process.env, stderr: "inherit" });
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, http),
  });
  http.onmessage = (message) => stdio.send(message);
  stdio.onmessage = (message) => http.send(message);
  http.onclose = () => {
    if (http.sessionId) sessions.delete(http.sessionId);
    stdio.close();
  };
  stdio.onclose = () => http.close();
  await stdio.start();
  await http.start();
  return http;
}

/** Whether a header names this machine (a page elsewhere must not reach it: DNS rebinding). */
function local(value) {
  if (!value) return true;
  try {
    const { hostname } = new URL(value.includes("://") ? value : `http://${value}`);
    return ["127.0.0.1", "localhost", "[::1]"].includes(hostname);
  } catch {
    return false;
  }
}

const server = createServer(async (request, response) => {
  if (!request.url?.startsWith("/mcp")) {
    response.writeHead(404).end();
    return;
  }
  if (!request.headers.host || !local(request.headers.host) || !local(request.headers.origin)) {
    response.writeHead(403, { "Content-Type": "text/plain" }).end("Only this machine may connect");
    return;
  }
  let body;
  if (request.method === "POST") {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      response.writeHead(400, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return;
    }
  }
  const id = request.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  const initializing = [body].flat().some((m) => m?.method === "initialize");
  if (!transport && initializing) transport = await open();
  if (!transport) {
    response.writeHead(id ? 404 : 400, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No such session" } }));
    return;
  }
  await transport.handleRequest(request, response, body);
});

server.listen(Number(port), "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`));
