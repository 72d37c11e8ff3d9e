import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { bridgeServer, type Upstream } from './bridge';

const bearer = (req: IncomingMessage) => /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];

function unauthorized(res: ServerResponse, message: string) {
  res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="svc"' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05): GET /sse opens the stream, whose first
 * event names the POST /messages URL. Both need `Authorization: Bearer <API_KEY>`; each stream is
 * bridged to the svc server with that key, as a server session of its own (everything relayed, as
 * over stdio: core/mcp/bridge.ts), ended when the stream closes.
 */
export function serveSseBridge(opts: { port: number; hostname: string; upstream: Omit<Upstream, 'apiKey'>; log: (l: string) => void }) {
  const sessions = new Map<string, { transport: SSEServerTransport; key: string }>();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const key = bearer(req);
    if (req.method === 'GET' && url.pathname === '/sse') {
      if (!key) return unauthorized(res, 'Authorization: Bearer <API_KEY> is required.');
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, { transport, key });
      res.on('close', () => sessions.delete(transport.sessionId));
      // The svc server went away: end this client's stream, so it learns at once rather than at its next call.
      await bridgeServer({ ...opts.upstream, apiKey: key }, opts.log, () => void transport.close()).connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      if (!key) return unauthorized(res, 'Authorization: Bearer <API_KEY> is required.');
      const session = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!session || session.key !== key) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      }
      return session.transport.handlePostMessage(req, res);
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not found: use GET /sse and POST /messages' }));
  });
  return new Promise<{ port: number; close: () => void }>((resolve) =>
    http.listen(opts.port, opts.hostname, () => {
      const address = http.address();
      resolve({ port: typeof address === 'object' && address ? address.port : opts.port, close: () => http.close() });
    }),
  );
}
