#!/usr/bin/env bun
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config';
import { DataDirLocked } from './db/lock';
import { recordedAddress } from './server-address';
import { PLANS, getStore, validateExpiry, validateScopes } from './keys';
import type { Db } from './db/types';
import type { Store } from './plugins/contract';
import { SvcError } from './errors';
import { openMigrated, type Composition } from './runtime';
import { callerCtx, invoke } from './plugins/invoke';
import { createRegistry } from './plugins/registry';
import { pluginList } from '../plugins';
import { allJobs } from '../workers';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './server';
import { Lifecycle, exitOnSignals } from './lifecycle';
import pkg from '../package.json';

const HELP = `svc ${pkg.version}: self-hosted commerce platform with AI-driven operations

Usage:
  svc serve [--role api|worker|all] [--port N] [--tools grouped|flat]
                                                 start the server (PORT, default 3000)
  svc migrate                                    apply database migrations and exit
  svc stores create --name NAME [--plan free|starter|pro|enterprise] [--instance-tools] [--json]
  svc keys create --store ID [--scopes a,b] [--live] [--expires-at ISO] [--json]
  svc users create --email EMAIL --store ID --role owner|admin|approver|staff|viewer [--name NAME] [--json]
                                                 add a user to a store (the password of a new account is read from stdin)
  svc login --url URL --key KEY                  keep a server URL and API key in ~/.svc/session.json
  svc login --url URL [--scope S]               sign in in the browser (OAuth, PKCE, loopback); tokens kept and refreshed
  svc mcp --store ID [--transport stdio|sse] [--port N] [--toolsets a,b] [--read-only] [--tools flat|grouped]
                                                 MCP for AI clients, bridged to the server at --url / SVC_URL
  svc --help | --version

Storage: DATABASE_URL selects PostgreSQL; otherwise the embedded database in SVC_DATA_DIR (./data).
The stores and keys commands talk to a running server when --url or SVC_URL is set (with the admin
token from --admin-token or SVC_ADMIN_TOKEN), and otherwise open the database directly.`;

class UsageError extends Error {}

/**
 * The composition root: the one core file that imports plugins/ and workers/. Built on first use,
 * so `--help` and flag errors answer without loading plugin configuration.
 */
let composed: Composition | undefined;
const app = (): Composition => {
  if (composed) return composed;
  const registry = createRegistry(pluginList, { env: process.env });
  return (composed = { registry, jobs: (db, clock) => allJobs(db, clock, registry) });
};

/**
 * The console's routes. console/serve.ts embeds console/dist, which a source checkout has only
 * once built: a fresh clone after `npm install` (`npx svc serve`, `bun core/cli.ts serve`) builds
 * it here first. One existsSync when it is there; the compiled binary carries the build and has no
 * build.ts beside it, so it never builds. Imported here, not at the top, so the commands that serve
 * nothing never need it.
 */
async function consolePages(): Promise<NonNullable<Composition['pages']>> {
  const dir = join(import.meta.dir, '..', 'console');
  if (!existsSync(join(dir, 'dist', 'bundle.txt')) && existsSync(join(dir, 'build.ts'))) {
    err('console/dist is missing: building the console (once; `bun console/build.ts` rebuilds it)');
    // A computed path, so the compiled binary does not bundle the builder it never runs.
    const { buildConsole }: typeof import('../console/build') = await import(join(dir, 'build.ts'));
    const result = await buildConsole();
    if (!result.success) throw new Error(`The console did not build:\n${result.logs.join('\n')}`);
  }
  return (await import('../console/serve')).consoleRoutes;
}
/** The command being run, for the error handler's advice. */
let running: string | undefined;

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
      // svc login --scope 'a b': exactly the OAuth scopes to ask for (space-separated, as OAuth writes them).
      scope: { type: 'string' },
      live: { type: 'boolean' },
      'expires-at': { type: 'string' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      key: { type: 'string' },
      email: { type: 'string' },
      transport: { type: 'string' },
      toolsets: { type: 'string' },
      'read-only': { type: 'boolean' },
      // svc stores create --instance-tools: trust the store with local_agent and launch_cluster.
      'instance-tools': { type: 'boolean' },
      tools: { type: 'string' },
    },
  });
  const [command, sub, ...extra] = positionals;
  running = command;
  if (values.version) return (out(pkg.version), 0);
  if (values.help || !command || command === 'help') return (out(HELP), command || values.help ? 0 : 2);
  // --role is the server's role for `serve`, a store role for `users create`.
  const config = loadConfig(process.env, {
    port: values.port,
    role: command === 'serve' ? values.role : undefined,
    tools: command === 'serve' ? values.tools : undefined,
  });

  if (command === 'serve') {
    if (sub) throw new UsageError(`Unexpected argument '${sub}'.`);
    // Signals are handled from the start: a SIGTERM during start-up stops the server once it is up.
    const lifecycle = new Lifecycle(config.shutdownGraceMs, err);
    exitOnSignals(lifecycle, { log: err });
    const starting = consolePages().then((pages) => serve(config, { ...app(), pages }, err, lifecycle));
    lifecycle.starting(starting);
    await starting;
    // Start-up's garbage (wasm bytes, the database archive, migration text) is returned now rather
    // than whenever the collector next runs, so an idle server holds only what it uses.
    Bun.gc(true);
    // The binary starts with the JIT reluctant (`--compile-jit-policy`, scripts/build.ts):
    // start-up code runs once, and compiling it only left machine code behind. Serving is normal.
    Bun.unsafe.setJITPolicy?.(1);
    // bench/footprint.ts measures memory after a full collection: it asks for one with SIGUSR2.
    // It also writes where the memory is (JS heap, RSS) to stderr, for docs/footprint.md's split.
    if (process.env.SVC_GC_ON_SIGUSR2 === '1') process.on('SIGUSR2', footprintReport);
    return new Promise(() => {}); // runs until a signal (core/lifecycle.ts)
  }
  if (command === 'migrate') {
    const opened = await openMigrated(config, app());
    await opened.close();
    out('Migrations applied.');
    return 0;
  }
  if (extra.length) throw new UsageError(`Unexpected argument '${extra[0]}'.`);
  if (command === 'mcp' || command === 'login') return mcpCommand(command, values);
  if (command === 'stores' && sub === 'create') return storesCreate(config, values);
  if (command === 'keys' && sub === 'create') return keysCreate(config, values);
  if (command === 'users' && sub === 'create') return usersCreate(config, values);
  throw new UsageError(`Unknown command '${positionals.join(' ')}'.`);
}

/** A full collection, then one line of where memory is: bench/footprint.ts and docs/footprint.md. */
function footprintReport() {
  Bun.gc(true);
  const { heapSize, heapCapacity, extraMemorySize, objectCount, objectTypeCounts } = require('bun:jsc').heapStats();
  const types = Object.entries(objectTypeCounts as Record<string, number>)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  const { rss, external, arrayBuffers } = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 1e5) / 10;
  err(
    `footprint: ${JSON.stringify({ rss: mb(rss), heap: mb(heapSize), heapCapacity: mb(heapCapacity), extra: mb(extraMemorySize), external: mb(external), arrayBuffers: mb(arrayBuffers), objects: objectCount, types: Object.fromEntries(types) })}`,
  );
}

type Flags = Record<string, string | boolean | undefined>;

/** `svc mcp` and `svc login`: the MCP SDK (client, bridges, stdio) loads only for these commands. */
async function mcpCommand(command: 'mcp' | 'login', values: Parameters<typeof import('./mcp/cli').mcp>[0]): Promise<number> {
  const { McpUsageError, login, mcp } = await import('./mcp/cli');
  try {
    if (command === 'mcp') await mcp(values);
    else out(`Saved to ${await login(values)}.`);
    return 0;
  } catch (e) {
    throw e instanceof McpUsageError ? new UsageError(e.message) : e;
  }
}

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
  const opened = await openMigrated(config, app());
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
  const body = { name, plan, ...(flags['instance-tools'] ? { instance_tools: true } : {}) };
  const r = remote(flags);
  const result = r
    ? await adminCall(r, '/v1/stores', body)
    : await direct(config, ({ db }) => asOperator(config, db, NO_STORE, 'admin', 'create_store', body));
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
  // The server's own checks, run here first so a bad flag exits 2 with the server's message.
  const usage = <T>(check: () => T): T => {
    try {
      return check();
    } catch (e) {
      if (e instanceof SvcError)
        throw new UsageError(e.message.replace(/^Invalid scopes\[\d+\]/, 'Invalid --scopes').replace(/^Invalid expires_at/, 'Invalid --expires-at'));
      throw e;
    }
  };
  const scopes =
    flags.scopes === undefined
      ? [...app().registry.scopes]
      : usage(() =>
          validateScopes(
            String(flags.scopes)
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
            [...app().registry.grantable],
          ),
        );
  const expires = flags['expires-at'] as string | undefined;
  usage(() => validateExpiry(expires, config.clock.now()));
  const body = { scopes, livemode: Boolean(flags.live), ...(expires ? { expires_at: expires } : {}) };
  const r = remote(flags);
  const key = r
    ? await adminCall(r, `/v1/stores/${encodeURIComponent(storeId)}/api-keys`, body)
    : await direct(config, async ({ db }) => asOperator(config, db, await storeOrUsage(db, storeId), 'api_keys', 'create_key', body));
  if (flags.json) out(JSON.stringify(key, null, 2));
  else out(`API key (shown once): ${key.key}\nScopes: ${key.scopes.join(', ')}`);
  return 0;
}

const NO_STORE: Store = Object.freeze({ id: '', name: '', plan: 'free' as const });

async function storeOrUsage(db: Db, storeId: string): Promise<Store> {
  const store = /^[0-9a-f-]{36}$/i.test(storeId) ? await getStore(db, storeId) : undefined;
  if (!store) throw new UsageError(`No such store: ${storeId}`);
  return store;
}

/**
 * Direct mode runs the operator's own action through invoke, as the admin API would: the same
 * validation, transaction and answer as `--url` mode, with no HTTP in between.
 */
async function asOperator(config: Config, db: Db, store: Store, pluginName: string, actionName: string, input: unknown): Promise<any> {
  const plugin = app().registry.byName.get(pluginName);
  const action = plugin?.actions[actionName];
  if (!plugin || !action) throw new UsageError(`The ${pluginName} plugin is not part of this build.`);
  const operator = { kind: 'admin' as const, scopes: ['admin'], livemode: false as const };
  try {
    return await invoke(
      plugin,
      action,
      callerCtx({ db, clock: config.clock, registry: app().registry }, operator, store, { requestId: 'cli' }),
      input,
    );
  } catch (e) {
    if (e instanceof SvcError) throw new Error(e.message);
    throw e;
  }
}

/**
 * `svc users create`: the first owner of a store (issue 11). Runs the users plugin's operator
 * action (through invoke, as the operator), over HTTP with --url or on the database directly.
 * The password comes from stdin, never from a flag (flags end up in shell history and `ps`).
 */
async function usersCreate(config: Config, flags: Flags) {
  const storeId = flags.store as string | undefined;
  if (!storeId || !flags.email || !flags.role) throw new UsageError('users create needs --email EMAIL --store ID --role ROLE.');
  const password = process.stdin.isTTY ? undefined : (await Bun.stdin.text()).replace(/\r?\n$/, '') || undefined;
  const body = {
    email: String(flags.email),
    role: String(flags.role),
    ...(flags.name ? { name: String(flags.name) } : {}),
    ...(password ? { password } : {}),
  };
  const r = remote(flags);
  const member = r
    ? await adminCall(r, `/v1/stores/${encodeURIComponent(storeId)}/users`, body)
    : await direct(config, async ({ db }) => asOperator(config, db, await storeOrUsage(db, storeId), 'users', 'create_user', body));
  if (flags.json) out(JSON.stringify(member, null, 2));
  else out(`User ${(member as any).email} (${(member as any).user_id}) is ${(member as any).role} of store ${storeId}.`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof DataDirLocked) {
      // The address the holder recorded when it started listening, not a guess from PORT.
      const url = recordedAddress(e.dir, e.pid);
      if (running === 'serve') {
        err(`${e.message}
${url ? `That server listens at ${url}. ` : ''}Stop it first, or start this one on another data directory (SVC_DATA_DIR)
or on PostgreSQL (DATABASE_URL).`);
        process.exit(1);
      }
      const tokenFile = join(e.dir, 'admin-token');
      err(`${e.message}
A running server holds the embedded database, so this command cannot open it. Either stop that
server, or send the command through it: add --url ${url ?? "<that server's URL>"} and the
admin token${existsSync(tokenFile) ? ` (kept in ${tokenFile})` : ''} with --admin-token or SVC_ADMIN_TOKEN.`);
      process.exit(1);
    }
    if (
      e instanceof UsageError ||
      e instanceof ConfigError ||
      (e as any)?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (e as any)?.code?.startsWith?.('ERR_PARSE_ARGS')
    ) {
      err(`svc: ${e.message}\nRun 'svc --help' for usage.`);
      process.exit(2);
    }
    err(`svc: ${e?.message ?? e}`);
    process.exit(1);
  },
);
