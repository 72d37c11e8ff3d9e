#!/usr/bin/env bun
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config';
import { DataDirLocked } from './db/lock';
import { ALL_SCOPES, PLANS, createKey, createStore, getStore, validateScopes } from './keys';
import { openMigrated } from './runtime';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './server';
import { Lifecycle, exitOnSignals } from './lifecycle';
import { McpUsageError, login, mcp } from './mcp/cli';
import pkg from '../package.json';

const HELP = `svc ${pkg.version}: self-hosted commerce platform with AI-driven operations

Usage:
  svc serve [--role api|worker|all] [--port N] [--tools grouped|flat]
                                                 start the server (PORT, default 3000)
  svc migrate                                    apply database migrations and exit
  svc stores create --name NAME [--plan free|starter|pro|enterprise] [--json]
  svc keys create --store ID [--scopes a,b] [--live] [--expires-at ISO] [--json]
  svc login --url URL --key KEY                  keep a server URL and API key in ~/.svc/session.json
  svc mcp --store ID [--transport stdio|sse] [--port N] [--toolsets a,b] [--read-only] [--tools flat|grouped]
                                                 MCP for AI clients, bridged to the server at --url / SVC_URL
  svc --help | --version

Storage: DATABASE_URL selects PostgreSQL; otherwise the embedded database in SVC_DATA_DIR (./data).
The stores and keys commands talk to a running server when --url or SVC_URL is set (with the admin
token from --admin-token or SVC_ADMIN_TOKEN), and otherwise open the database directly.`;

class UsageError extends Error {}

const out = (s: string) => process.stdout.write(s + '\n');
const err = (s: string) => process.stderr.write(s + '\n');

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      role: { type: 'string' },
      port: { type: 'string' },
      name: { type: 'string' },
      plan: { type: 'string' },
      json: { type: 'boolean' },
      store: { type: 'string' },
      scopes: { type: 'string' },
      live: { type: 'boolean' },
      'expires-at': { type: 'string' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      key: { type: 'string' },
      transport: { type: 'string' },
      toolsets: { type: 'string' },
      'read-only': { type: 'boolean' },
      tools: { type: 'string' },
    },
  });
  const [command, sub, ...extra] = positionals;
  if (values.version) return out(pkg.version), 0;
  if (values.help || !command || command === 'help') return out(HELP), command || values.help ? 0 : 2;
  const config = loadConfig(process.env, { port: values.port, role: values.role, tools: command === 'serve' ? values.tools : undefined });

  if (command === 'serve') {
    if (sub) throw new UsageError(`Unexpected argument '${sub}'.`);
    // Signals are handled from the start: a SIGTERM during start-up stops the server once it is up.
    const lifecycle = new Lifecycle(config.shutdownGraceMs, err);
    exitOnSignals(lifecycle, { log: err });
    const starting = serve(config, err, lifecycle);
    lifecycle.starting(starting);
    await starting;
    return new Promise(() => {}); // runs until a signal (core/lifecycle.ts)
  }
  if (command === 'migrate') {
    const opened = await openMigrated(config);
    await opened.close();
    out('Migrations applied.');
    return 0;
  }
  if (extra.length) throw new UsageError(`Unexpected argument '${extra[0]}'.`);
  if (command === 'mcp') return await mcp(values), 0;
  if (command === 'login') return out(`Saved to ${await login(values)}.`), 0;
  if (command === 'stores' && sub === 'create') return storesCreate(config, values);
  if (command === 'keys' && sub === 'create') return keysCreate(config, values);
  throw new UsageError(`Unknown command '${positionals.join(' ')}'.`);
}

type Flags = Record<string, string | boolean | undefined>;

function remote(flags: Flags): { url: string; token: string } | undefined {
  const url = (flags.url as string) ?? process.env.SVC_URL;
  if (!url) return undefined;
  const token = (flags['admin-token'] as string) ?? process.env.SVC_ADMIN_TOKEN;
  if (!token) throw new UsageError('Talking to a server needs the admin token: pass --admin-token or set SVC_ADMIN_TOKEN.');
  return { url: url.replace(/\/$/, ''), token };
}

async function adminCall(r: { url: string; token: string }, path: string, body: unknown) {
  let res: Response;
  try {
    res = await fetch(r.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new Error(`Cannot reach the svc server at ${r.url}: ${(e as Error).message}`);
  }
  const json: any = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`Server answered ${res.status}: ${json?.error?.message ?? res.statusText}`);
  return json;
}

/** Direct mode: open the database ourselves (only when no server holds the embedded one). */
async function direct<T>(config: Config, fn: (opened: Awaited<ReturnType<typeof openMigrated>>) => Promise<T>): Promise<T> {
  const opened = await openMigrated(config);
  try {
    return await fn(opened);
  } finally {
    await opened.close();
  }
}

async function storesCreate(config: Config, flags: Flags) {
  const name = flags.name as string | undefined;
  if (!name?.trim()) throw new UsageError('stores create needs --name NAME.');
  const plan = (flags.plan as string) ?? 'free';
  if (!PLANS.includes(plan as any)) throw new UsageError(`Invalid --plan '${plan}': expected ${PLANS.join(', ')}.`);
  const r = remote(flags);
  const result = r
    ? await adminCall(r, '/v1/stores', { name, plan })
    : await direct(config, ({ db }) =>
        db.transaction(async (tx) => {
          const store = await createStore(tx, config.clock, { name: name.trim(), plan });
          const api_key = await createKey(tx, config.clock, { storeId: store.id, scopes: ALL_SCOPES, livemode: false });
          return { store: { object: 'store', ...store }, api_key };
        }),
      );
  if (flags.json) out(JSON.stringify(result, null, 2));
  else {
    out(`Store created: ${result.store.id} (${result.store.name}, plan ${result.store.plan})`);
    out(`API key (shown once): ${result.api_key.key}`);
  }
  return 0;
}

async function keysCreate(config: Config, flags: Flags) {
  const storeId = flags.store as string | undefined;
  if (!storeId) throw new UsageError('keys create needs --store ID.');
  let scopes = ALL_SCOPES;
  try {
    if (flags.scopes !== undefined) scopes = validateScopes(String(flags.scopes).split(',').map((s) => s.trim()).filter(Boolean));
  } catch {
    throw new UsageError(`Invalid --scopes '${flags.scopes}': expected a comma-separated list like products:read,orders:write.`);
  }
  const expires = flags['expires-at'] as string | undefined;
  if (expires && Number.isNaN(new Date(expires).getTime())) throw new UsageError(`Invalid --expires-at '${expires}': expected ISO 8601.`);
  const body = { scopes, livemode: Boolean(flags.live), ...(expires ? { expires_at: expires } : {}) };
  const r = remote(flags);
  const key = r
    ? await adminCall(r, `/v1/stores/${encodeURIComponent(storeId)}/api-keys`, body)
    : await direct(config, async ({ db }) => {
        if (!/^[0-9a-f-]{36}$/i.test(storeId) || !(await getStore(db, storeId))) throw new UsageError(`No such store: ${storeId}`);
        return createKey(db, config.clock, { storeId, scopes, livemode: body.livemode, expiresAt: expires ? new Date(expires) : null });
      });
  if (flags.json) out(JSON.stringify(key, null, 2));
  else out(`API key (shown once): ${key.key}\nScopes: ${key.scopes.join(', ')}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof DataDirLocked) {
      const tokenFile = join(e.dir, 'admin-token');
      err(`${e.message}
A running server holds the embedded database, so this command cannot open it. Either stop that
server, or send the command through it: add --url http://127.0.0.1:${process.env.PORT ?? 3000} and the
admin token${existsSync(tokenFile) ? ` (kept in ${tokenFile})` : ''} with --admin-token or SVC_ADMIN_TOKEN.`);
      process.exit(1);
    }
    if (e instanceof UsageError || e instanceof McpUsageError || e instanceof ConfigError || (e as any)?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (e as any)?.code?.startsWith?.('ERR_PARSE_ARGS')) {
      err(`svc: ${e.message}\nRun 'svc --help' for usage.`);
      process.exit(2);
    }
    err(`svc: ${e?.message ?? e}`);
    process.exit(1);
  },
);
