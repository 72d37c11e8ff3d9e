import { EgressError, errors, isUniqueViolation, secretBox, setClause, type Ctx, type PluginDef } from '../../core/sdk';
import {
  ASYNC_FUNCTION,
  builtinNames,
  checkPlan,
  checkUrl,
  compileSchema,
  runCustomTool,
  runInSandbox,
  toCustomTool,
  validateCustomInput,
  type CustomTool,
} from '../../core/platform';
import { announce } from './announce';
import { checkPublishing, ownTool, OWN, readableTool, visibleTools, type Access } from './published';

export type View = 'tool' | 'custom_tool';

/** A definition in storage terms, whichever form it came in. */
interface Definition {
  name: string;
  description: string;
  category: string | null;
  input_schema: Record<string, unknown>;
  kind: 'http' | 'javascript';
  config: Record<string, unknown>;
  visibility: 'private' | 'public';
  requires_plan: string;
  requires_approval: boolean;
  requires_confirmation: boolean;
  approval_timeout_minutes: number;
  timeout_action: string;
  escalation_group: string | null;
}

const EMPTY_SCHEMA = { type: 'object', properties: {} };
const APPROVAL_FIELDS = ['requires_approval', 'requires_confirmation', 'approval_timeout_minutes', 'timeout_action', 'escalation_group'] as const;

/** Shape B input (or patch) as storage fields; absent fields stay absent. */
function fromShapeB(input: Record<string, any>): Partial<Definition> {
  const d: Partial<Definition> = {};
  if (input.name !== undefined) d.name = input.name;
  if (input.description !== undefined) d.description = input.description;
  if (input.category !== undefined) d.category = input.category;
  if (input.parameters !== undefined) d.input_schema = input.parameters;
  if (input.execution_type !== undefined) d.kind = input.execution_type;
  if (input.execution_config !== undefined) d.config = input.execution_config;
  if (input.visibility !== undefined) d.visibility = input.visibility;
  if (input.requires_plan !== undefined) d.requires_plan = input.requires_plan;
  for (const f of APPROVAL_FIELDS) if (input[f] !== undefined) (d as any)[f] = input[f];
  return d;
}

/** Shape A input (or patch): `handler.type` webhook is our http, visibility `store` our private. */
function fromShapeA(input: Record<string, any>): Partial<Definition> {
  const d = fromShapeB({ ...input, parameters: input.input_schema, visibility: input.visibility === 'store' ? 'private' : input.visibility });
  if (input.handler !== undefined) {
    const { type, ...config } = input.handler;
    d.kind = type === 'webhook' ? 'http' : 'javascript';
    d.config = config;
  }
  return d;
}

export const fromShape = (view: View, input: Record<string, any>) => (view === 'tool' ? fromShapeB(input) : fromShapeA(input));

/**
 * The two views of one stored tool: Shape B for STORE/tools, Shape A for /custom-tools, with how
 * the calling store relates to it (`owned`, `enabled`: see public.ts).
 */
// `any`: the caller's action schema (Tool or CustomTool) is what the view produces.
export function render(t: CustomTool, view: View, access: Access): any {
  const common = {
    id: t.id,
    name: t.name,
    description: t.description,
    category: t.category,
    requires_plan: t.requires_plan,
    requires_approval: t.requires_approval,
    requires_confirmation: t.requires_confirmation,
    approval_timeout_minutes: t.approval_timeout_minutes,
    timeout_action: t.timeout_action,
    escalation_group: t.escalation_group,
    secret_names: t.secret_names,
    owned: access.owned,
    enabled: access.enabled,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
  if (view === 'tool')
    return {
      object: 'tool' as const,
      ...common,
      parameters: t.input_schema,
      execution_type: t.kind,
      execution_config: t.config,
      visibility: t.visibility,
    };
  return {
    object: 'custom_tool' as const,
    ...common,
    input_schema: t.input_schema,
    handler: { type: t.kind === 'http' ? 'webhook' : 'javascript', ...t.config },
    visibility: t.visibility === 'private' ? 'store' : 'public',
  };
}

/** Field names as the caller's form spells them, for error params. */
const names = (view: View) =>
  view === 'tool'
    ? { schema: 'parameters', config: 'execution_config', kind: 'execution_type' }
    : { schema: 'input_schema', config: 'handler', kind: 'handler.type' };

// Secret references, for the URL check: `{{NAME}}` or `{{secrets.NAME}}`.
const REFS = /\{\{\s*(?:secrets\.)?[A-Za-z_][A-Za-z0-9_]*\s*\}\}/g;

/**
 * The rules of webhook URLs (the egress guard's registration checks): https only, since headers
 * carry secrets; no user name or password; no private, loopback, link-local (cloud metadata) or
 * other non-public IP address unless SVC_EGRESS_ALLOW allows it. Secret references are checked as
 * placeholders; host names are checked again at every run, when they are resolved.
 */
function checkToolUrl(template: string, param: string) {
  try {
    checkUrl(template.replace(REFS, 'x'), { httpsOnly: true, purpose: 'tool' });
  } catch (err) {
    if (err instanceof EgressError) throw errors.validation(`Invalid ${param}: ${err.message}`, param);
    throw err;
  }
}

/** Checks a whole definition (after a patch is applied): 400 naming the field in the caller's form. */
async function validate(plugins: readonly PluginDef[], d: Definition, view: View, previous?: Definition) {
  const n = names(view);
  if (builtinNames(plugins).has(d.name)) throw errors.validation(`Invalid name: '${d.name}' is a built-in tool name; choose another.`, 'name');
  if (d.input_schema.type !== 'object') throw errors.validation(`Invalid ${n.schema}: the schema must have type "object".`, n.schema);
  compileSchema(d.input_schema, n.schema);
  if (d.kind === 'http') {
    if (typeof d.config.url !== 'string') throw errors.validation(`Invalid ${n.config}.url: an HTTP tool needs a url.`, `${n.config}.url`);
    if (d.config.code !== undefined) throw errors.validation(`Invalid ${n.config}.code: only JavaScript tools have code.`, `${n.config}.code`);
    checkToolUrl(d.config.url, `${n.config}.url`);
  } else {
    const code = d.config.code;
    if (typeof code !== 'string') throw errors.validation(`Invalid ${n.config}.code: a JavaScript tool needs code.`, `${n.config}.code`);
    const extra = Object.keys(d.config).find((k) => k !== 'code');
    if (extra) throw errors.validation(`Invalid ${n.config}.${extra}: JavaScript tools take only code.`, `${n.config}.${extra}`);
    // Compiled (not run) in the sandbox: a syntax error is a 400 now, not a failure at the first call.
    // Code already stored was checked when it was stored (a patch of other fields need not wait for a worker).
    const unchanged = previous?.kind === 'javascript' && previous.config.code === code;
    const compiled = unchanged
      ? { ok: true as const }
      : // The default limit: compiling takes milliseconds, but on a loaded machine a 1 s limit refused
        // valid code as invalid (a 400 the caller cannot fix).
        await runInSandbox(`${ASYNC_FUNCTION}('input', 'params', ${JSON.stringify(code)}); return true;`, {});
    if (!compiled.ok) throw errors.validation(`Invalid ${n.config}.code: ${compiled.message}.`, `${n.config}.code`);
  }
  if (d.timeout_action === 'escalate' && !d.escalation_group)
    throw errors.validation('Invalid escalation_group: timeout_action escalate needs an escalation_group.', 'escalation_group');
}

const duplicate = (name: string) => errors.conflict(`A tool named '${name}' already exists in this store.`, 'duplicate_name', 'name');

export async function createTool(plugins: readonly PluginDef[], ctx: Ctx, view: View, input: Record<string, any>) {
  const d = {
    category: null,
    input_schema: EMPTY_SCHEMA,
    visibility: 'private',
    requires_plan: 'free',
    requires_approval: false,
    requires_confirmation: false,
    approval_timeout_minutes: 30,
    timeout_action: 'reject',
    escalation_group: null,
    ...fromShape(view, input),
  } as Definition;
  checkPublishing(undefined, d, view === 'tool' ? 'private' : 'store');
  await validate(plugins, d, view);
  const now = ctx.clock.now();
  try {
    const [row] = await ctx.db.query(
      `INSERT INTO custom_tools (id, store_id, name, shape, description, category, input_schema, kind, config, visibility, requires_plan,
         requires_approval, approval_timeout_minutes, timeout_action, escalation_group, created_at, updated_at, requires_confirmation)
       VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9::text::jsonb, $10, $11, $12, $13, $14, $15, $16, $16, $17)
       ON CONFLICT (store_id, name) DO NOTHING RETURNING *`,
      [
        crypto.randomUUID(),
        ctx.store.id,
        d.name,
        view === 'tool' ? 'store' : 'gateway',
        d.description,
        d.category,
        JSON.stringify(d.input_schema),
        d.kind,
        JSON.stringify(d.config),
        d.visibility,
        d.requires_plan,
        d.requires_approval,
        d.approval_timeout_minutes,
        d.timeout_action,
        d.escalation_group,
        now,
        d.requires_confirmation,
      ],
    );
    if (!row) throw duplicate(d.name);
    announce(ctx, ctx.store.id, d.visibility);
    return render(toCustomTool(row), view, OWN);
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(d.name);
    throw e;
  }
}

export async function updateTool(plugins: readonly PluginDef[], ctx: Ctx, view: View, input: Record<string, any>) {
  // xmin: the row version (it changes with every write), for the guarded UPDATE below.
  const [found] = await ctx.db.query('SELECT *, xmin::text AS row_version FROM custom_tools WHERE store_id = $1 AND id = $2', [
    ctx.store.id,
    input.id,
  ]);
  if (!found) {
    await ownTool(ctx, input.id); // another store's public tool: 403, read-only here
    throw errors.notFound(`tool: '${input.id}'`, 'id');
  }
  const { row_version: version, ...stored } = found;
  const current = toCustomTool(stored);
  const patch = fromShape(view, input);
  const d: Definition = { ...current, ...patch } as Definition;
  checkPublishing(current, d, view === 'tool' ? 'private' : 'store');
  await validate(plugins, d, view, current as Definition);
  const withdrawn = current.visibility === 'public' && d.visibility === 'private';
  try {
    // Runs outside a transaction (the compile check may wait for a sandbox worker), so the row is
    // written only if it is still the one read: a concurrent change is a 409, never silently undone.
    // So the patch alone is written: every other column is still what was read and validated.
    const set = setClause({ ...patch, updated_at: ctx.clock.now() }, { json: ['input_schema', 'config'], after: 3 });
    const row = await ctx.db.transaction(async (tx) => {
      const [updated] = await tx.query(`UPDATE custom_tools SET ${set.sql} WHERE store_id = $1 AND id = $2 AND xmin::text = $3 RETURNING *`, [
        ctx.store.id,
        current.id,
        version,
        ...set.params,
      ]);
      // Withdrawn by its owner: every store that had enabled it loses it (publishing again starts afresh).
      if (updated && withdrawn) await tx.query('DELETE FROM custom_tool_enablements WHERE tool_id = $1', [current.id]);
      return updated;
    });
    if (!row) {
      await ownTool(ctx, input.id); // deleted meanwhile: 404
      throw errors.conflict('The tool was changed by another request meanwhile; fetch it and try again.', 'concurrent_modification', 'id');
    }
    announce(ctx, ctx.store.id, current.visibility === 'public' ? 'public' : d.visibility);
    return render(toCustomTool(row), view, OWN);
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(d.name);
    throw e;
  }
}

export async function deleteTool(ctx: Ctx, id: string) {
  const [row] = await ctx.db.query('DELETE FROM custom_tools WHERE store_id = $1 AND id = $2 RETURNING id, visibility', [ctx.store.id, id]);
  if (!row) {
    await ownTool(ctx, id); // another store's public tool: 403, read-only here
    throw errors.notFound(`tool: '${id}'`, 'id');
  }
  announce(ctx, ctx.store.id, row.visibility);
  return row;
}

/** The store's tools and the public tools of other stores it may enable (public.ts), newest first. */
export async function listTools(ctx: Ctx, view: View, input: { limit?: number; starting_after?: string; ending_before?: string }) {
  const { items, has_more } = await visibleTools(ctx, input);
  const data = items.map(({ tool, access }) => render(tool, view, access));
  return { object: 'list' as const, data, has_more, url: `${ctx.storePath}/${view === 'tool' ? 'tools' : 'custom-tools'}` };
}

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_SECRETS = 50;

/** PUT .../secrets: the whole set, sealed; only the names come back. */
export async function setSecrets(ctx: Ctx, input: Record<string, string>) {
  const { id, ...secrets } = input;
  const tool = await ownTool(ctx, id);
  const entries = Object.entries(secrets);
  if (entries.length > MAX_SECRETS) throw errors.validation(`Too many secrets: at most ${MAX_SECRETS}.`);
  for (const [name] of entries)
    if (!SECRET_NAME.test(name)) throw errors.validation(`Invalid secret name '${name}': letters, digits and _, not starting with a digit.`, name);
  const sealed = entries.length ? secretBox().seal(JSON.stringify(secrets)) : null;
  const names = entries.map(([n]) => n).sort();
  const now = ctx.clock.now();
  await ctx.db.query('UPDATE custom_tools SET secrets = $3, secret_names = $4::text::jsonb, updated_at = $5 WHERE store_id = $1 AND id = $2', [
    ctx.store.id,
    tool.id,
    sealed,
    JSON.stringify(names),
    now,
  ]);
  announce(ctx, ctx.store.id, tool.visibility); // cached copies hold the old secrets
  return { object: 'tool_secrets' as const, tool_id: tool.id, names, updated_at: now.toISOString() };
}

/** POST .../test: one run on the given input, outside the audit log and the approval gate. */
export async function testTool(ctx: Ctx, id: string, input: Record<string, unknown>) {
  // Another store's public tool may be tried too, before enabling it: it runs as it would here.
  const { tool } = await readableTool(ctx, id);
  checkPlan(tool, ctx.store);
  validateCustomInput(tool, input);
  const started = performance.now();
  const out = await runCustomTool(tool, input, ctx.store.id);
  const execution_time_ms = Math.round(performance.now() - started);
  if (out.status === 'success') return { success: true, result: out.result, execution_time_ms };
  return { success: false, result: null, execution_time_ms, error: { status: out.status, message: out.message } };
}
