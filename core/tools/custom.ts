import type { ValidateFunction } from 'ajv';
import { lazy } from '../lazy';
import { createLogger } from '../log';
import type { Db } from '../db/types';
import { iso } from '../clock';
import { errors, fail } from '../errors';
import type { PluginDef, Store } from '../plugins/contract';
import { DISCOVER_TOOLS } from './catalog';
import { flatName } from '../plugins/registry';
import { runInSandbox } from '../sandbox/pool';
import { secretBox, redactDeep } from '../secrets';
import { runHttpTool, type HttpToolConfig, type RunOutcome } from './http-tool';
import type { CustomTool } from './types';

/** The one action of a custom tool, as the audit log and approval overrides name it. */
export const CUSTOM_ACTION = 'run';
import { planAtLeast } from '../plans';
import { toolsChanged } from '../signals';

export function toCustomTool(r: Record<string, any>): CustomTool {
  return { ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) } as CustomTool;
}

/** Built-in names a custom tool may not take: categories, flat action names and discover_tools. */
export function builtinNames(plugins: readonly PluginDef[]): Set<string> {
  const names = new Set<string>([DISCOVER_TOOLS]);
  for (const p of plugins) {
    names.add(p.name);
    for (const a of Object.keys(p.actions)) names.add(flatName(p, a));
  }
  return names;
}

/**
 * The custom tools a store offers its MCP clients and agents: its own, then the public tools of
 * other stores it enabled (custom_tool_enablements) whose names it does not use. A public tool is
 * never offered on its owner's say alone: the operator publishes it, each store opts in.
 * Cached per process for a moment: every MCP and agent tool call resolves its name here,
 * and a query per call would cost a fifth of a JavaScript tool's throughput. Changes made through
 * this process apply at once (forgetCustomTools); through another process, within CACHE_MS.
 */
const CACHE_MS = 2000;
const cache = new Map<string, { at: number; tools: Promise<CustomTool[]> }>();

export function usableCustomTools(db: Db, storeId: string): Promise<CustomTool[]> {
  const hit = cache.get(storeId);
  if (hit && performance.now() - hit.at < CACHE_MS) return hit.tools;
  const tools = db
    .query(
      `SELECT DISTINCT ON (t.name) t.* FROM custom_tools t
       WHERE t.store_id = $1
          OR (t.visibility = 'public' AND EXISTS (SELECT 1 FROM custom_tool_enablements e WHERE e.store_id = $1 AND e.tool_id = t.id))
       ORDER BY t.name, (t.store_id = $1) DESC, t.seq`,
      [storeId],
    )
    .then((rows) => rows.map(toCustomTool));
  if (cache.size > 10_000) cache.clear();
  cache.set(storeId, { at: performance.now(), tools });
  tools.catch(() => cache.delete(storeId));
  return tools;
}

/** After a change to a store's tools ('*': a public tool, which any store may have enabled). */
export function forgetCustomTools(storeId: string) {
  if (storeId === '*') cache.clear();
  else cache.delete(storeId);
}
toolsChanged.on(forgetCustomTools);

/** The public tools with these names (an agent naming one in its `tools` enables it for that agent). */
export async function publicToolsNamed(db: Db, names: string[]): Promise<CustomTool[]> {
  if (!names.length) return [];
  const rows = await db.query(
    `SELECT * FROM custom_tools WHERE visibility = 'public' AND name IN (SELECT jsonb_array_elements_text($1::text::jsonb)) ORDER BY seq`,
    [JSON.stringify(names)],
  );
  return rows.map(toCustomTool);
}

/** The names of every public tool: what an agent may name besides the store's own tools. */
export async function publicToolNames(db: Db): Promise<string[]> {
  return (await db.query<{ name: string }>(`SELECT DISTINCT name FROM custom_tools WHERE visibility = 'public' ORDER BY name`)).map((r) => r.name);
}

/** One usable custom tool by name (own first), or undefined. */
export async function findCustomTool(db: Db, storeId: string, name: string): Promise<CustomTool | undefined> {
  return (await usableCustomTools(db, storeId)).find((t) => t.name === name);
}

/** requires_plan (SPEC 8 plan tiers): a store below it gets a 403 naming the plan. */
export function checkPlan(tool: CustomTool, store: Store) {
  if (!planAtLeast(store.plan, tool.requires_plan))
    throw fail(
      'plan_required',
      `The tool '${tool.name}' requires the ${tool.requires_plan} plan or higher; this store is on the ${store.plan} plan.`,
      'requires_plan',
    );
}

// Ajv's notices (an unknown format or keyword it ignores) go to the structured log, never bare stderr.
const schemaLog = createLogger({ fields: { component: 'custom_tool_schemas' } });
// Made at the first custom tool's schema (docs/footprint.md: libraries load on first use).
const ajv = lazy(() => {
  const Ajv: typeof import('ajv').default = require('ajv').default;
  const addFormats: typeof import('ajv-formats').default = require('ajv-formats').default;
  const made = new Ajv({
    allErrors: false,
    strict: false,
    logger: {
      log: (...args: unknown[]) => schemaLog.debug(args.map(String).join(' ')),
      warn: (...args: unknown[]) => schemaLog.warn(args.map(String).join(' ')),
      error: (...args: unknown[]) => schemaLog.error(args.map(String).join(' ')),
    },
  });
  // `format: "email"`, `"date-time"`, `"uri"` ... are checked, as the tool's author meant.
  addFormats(made);
  return made;
});
const validators = new Map<string, ValidateFunction>();

/** Compiles an input schema (at registration: a schema Ajv cannot compile is a 400 on `param`). */
export function compileSchema(schema: object, param: string): ValidateFunction {
  try {
    return ajv().compile(schema);
  } catch (e) {
    throw errors.validation(`Invalid ${param}: ${(e as Error).message}.`, param);
  }
}

/** Validates a call's input against the tool's input schema; the first failure names the field. */
export function validateCustomInput(tool: CustomTool, input: unknown) {
  const cacheKey = `${tool.id}:${tool.updated_at}`;
  let validate = validators.get(cacheKey);
  if (!validate) {
    validate = compileSchema(tool.input_schema, 'input_schema');
    if (validators.size > 1000) validators.clear();
    validators.set(cacheKey, validate);
  }
  if (validate(input)) return;
  const err = validate.errors?.[0];
  const missing = err?.keyword === 'required' ? (err.params as { missingProperty: string }).missingProperty : undefined;
  const path = [...(err?.instancePath ?? '').split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
  throw errors.validation(`Invalid ${path || 'input'}: ${err?.message ?? "does not match the tool's input schema"}.`, path || null);
}

/** The tool's secrets, opened (only here, only for a run). */
function openSecrets(tool: CustomTool): Record<string, string> {
  return tool.secrets ? JSON.parse(secretBox().open(tool.secrets)) : {};
}

/**
 * Runs a custom tool on its input: HTTP tools through the egress guard, JavaScript tools in a fresh
 * QuickJS sandbox (the input is visible as both `input` and `params`, so code written for either
 * form runs), sharing the sandbox pool fairly with other stores (`storeId` is the calling store).
 * Secret values never leave: every result and message is redacted.
 */
export async function runCustomTool(tool: CustomTool, input: unknown, storeId: string): Promise<RunOutcome> {
  let secrets: Record<string, string>;
  try {
    secrets = openSecrets(tool);
  } catch (e) {
    return { status: 'error', message: (e as Error).message };
  }
  if (tool.kind === 'http') return runHttpTool(tool.config as HttpToolConfig, input, secrets);
  const out = await runInSandbox((tool.config as { code: string }).code, { input, params: input }, { tenant: storeId });
  const values = Object.values(secrets);
  if (out.ok) return { status: 'success', result: redactDeep(out.result, values) };
  return { status: out.status, message: redactDeep(out.message, values) as string };
}
