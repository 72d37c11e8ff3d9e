import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { bridgeServer } from './bridge';
import { serveSseBridge } from './sse-bridge';
import { browserLogin, saveSession, sessionCredential } from './oauth-login';

export class McpUsageError extends Error {}

export const sessionFile = () => join(process.env.HOME ?? homedir(), '.svc', 'session.json');
const log = (line: string) => process.stderr.write(line + '\n'); // stdout carries JSON-RPC only

/**
 * `svc login --url URL --key KEY`: checks the key against the server, then keeps both (0600).
 * Without --key: signs in through the browser (core/mcp/oauth-login.ts) and keeps the tokens.
 */
export async function login(flags: Record<string, any>) {
  const url = (flags.url ?? process.env.SVC_URL) as string | undefined;
  const key = flags.key as string | undefined;
  if (!url) throw new McpUsageError('login needs --url URL (and --key KEY for an API key; without it you sign in in the browser).');
  if (!key) {
    const oauth = await browserLogin(url, { scope: flags.scope as string | undefined });
    saveSession(sessionFile(), { url, oauth });
    return sessionFile();
  }
  let res: Response;
  try {
    res = await fetch(new URL('/agent/mcp', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'svc-login', version: '1' } },
      }),
    });
  } catch (e) {
    throw new Error(`Cannot reach the svc server at ${url}: ${(e as Error).message}`);
  }
  if (res.status === 401) throw new Error(`The svc server at ${url} refused this API key.`);
  if (!res.ok) throw new Error(`The svc server at ${url} answered ${res.status}.`);
  await res.body?.cancel();
  const file = sessionFile();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify({ url, api_key: key }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

function credentials(flags: Record<string, any>) {
  const saved = existsSync(sessionFile()) ? JSON.parse(readFileSync(sessionFile(), 'utf8')) : {};
  const apiKey = process.env.SVC_API_KEY ?? saved.api_key;
  const url = (flags.url ?? process.env.SVC_URL ?? saved.url ?? 'http://127.0.0.1:3000') as string;
  // A browser sign-in session (svc login without --key): its token, refreshed when due.
  const credential = !apiKey && saved.oauth ? sessionCredential(sessionFile()) : undefined;
  return { apiKey: apiKey as string | undefined, url, credential, storeId: saved.oauth?.store_id as string | undefined };
}

/** `svc mcp --store ID [--transport stdio|sse] [--port N] [--toolsets a,b] [--read-only] [--tools flat]` */
export async function mcp(flags: Record<string, any>) {
  const { apiKey, url, credential, storeId: signedInStore } = credentials(flags);
  // A signed-in session is for one store: it is the default.
  const storeId = (flags.store ?? signedInStore) as string | undefined;
  if (!storeId) throw new McpUsageError('mcp needs --store STORE_ID.');
  const transport = (flags.transport ?? 'stdio') as string;
  if (transport !== 'stdio' && transport !== 'sse') throw new McpUsageError(`Invalid --transport '${transport}': expected stdio or sse.`);
  const query = new URLSearchParams();
  if (flags.toolsets) query.set('toolsets', flags.toolsets);
  if (flags['read-only']) query.set('readonly', 'true');
  if (flags.tools) {
    if (flags.tools !== 'flat' && flags.tools !== 'grouped') throw new McpUsageError(`Invalid --tools '${flags.tools}': expected flat or grouped.`);
    query.set('tools', flags.tools);
  }
  if (transport === 'sse') {
    const port = Number(flags.port ?? 3001);
    const bridge = await serveSseBridge({ port, hostname: '127.0.0.1', upstream: { url, storeId, query }, log });
    log(`svc mcp (legacy SSE) on http://127.0.0.1:${bridge.port}/sse, bridging to ${url}`);
    return new Promise<never>(() => {});
  }
  if (!apiKey && !credential)
    throw new McpUsageError('No API key: set SVC_API_KEY, or run svc login --url URL (browser sign-in) or svc login --url URL --key KEY.');
  // An MCP client ends a stdio server by closing its stdin; the bridge also ends when its server went away.
  let gone = false;
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const server = bridgeServer({ url, apiKey: apiKey ?? '', credential, storeId, query }, log, () => {
    gone = true;
    end();
  });
  const stdio = new StdioServerTransport();
  await server.connect(stdio);
  process.stdin.on('end', end);
  process.stdin.on('close', end);
  await ended;
  await server.close();
  if (gone) throw new Error(`the svc server at ${url} went away; start svc mcp again once it is back.`);
}
