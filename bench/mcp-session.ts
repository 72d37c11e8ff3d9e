/** How a request is sent: over the network (fetch) or into an in-process app (`app.handle`). */
type Send = (url: string, init: RequestInit) => Promise<Response>;

/** Opens an MCP session (initialize + initialized) and returns the headers every call then carries. */
export async function mcpSession(base: string, auth: Record<string, string>, send: Send = fetch) {
  const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await send(`${base}/agent/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sid) throw new Error(`MCP initialize failed: ${init.status}`);
  const session = { accept: headers.accept, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await send(`${base}/agent/mcp`, {
    method: 'POST',
    headers: { ...headers, ...session },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  return session;
}
