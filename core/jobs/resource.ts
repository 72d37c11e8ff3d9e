import { Type } from '@sinclair/typebox';
import { errors } from '../errors';
import { listPage } from '../db/rows';
import { action, type ActionDef, type Ctx, type PluginDef } from '../plugins/contract';
import { checkScope } from '../plugins/invoke';
import { Input, ListOf, ListParams, Uuid } from '../plugins/schema';
import { cancelJob, getJob, JOB_STATUSES, JobStarted, toJob } from './tracked';

/**
 * The job resource, derived by the registry (never declared by a plugin): `GET STORE/jobs/{id}`,
 * `POST STORE/jobs/{id}/cancel` and `GET STORE/jobs` for every job of the store a client follows;
 * and, for each plugin whose actions start jobs, the tool actions `get_job` and `cancel_job`
 * limited to that plugin's jobs (MCP clients and agents reach jobs through the tool that started them).
 */

const JobId = Input({ id: Uuid('The job id an action answered.') });
const owner = (type: string) => type.slice(0, type.indexOf('.'));

/** A job is read with its plugin's read scopes and cancelled with its write scopes; another store's is 404. */
async function ownJob(ctx: Ctx, id: string, kind: 'read' | 'write', only?: string) {
  const job = await getJob(ctx.db, ctx.store.id, id);
  if (!job || (only && owner(job.type) !== only)) throw errors.notFound(`job: '${id}'`, 'id');
  const plugin = ctx.registry.byName.get(owner(job.type));
  if (plugin) checkScope(plugin, { kind } as ActionDef, ctx);
  return job;
}

function mayRead(ctx: Ctx, plugin: PluginDef) {
  try {
    checkScope(plugin, { kind: 'read' } as ActionDef, ctx);
    return true;
  } catch {
    return false;
  }
}

const getJobAction = (only?: string) =>
  action({
    kind: 'read',
    description:
      'Read a job an action started: its status (queued, running, succeeded, failed, cancelled), progress and result. Poll until finished.',
    input: JobId,
    output: JobStarted,
    ...(only ? {} : { rest: { method: 'GET' as const, path: '/jobs/:id' } }),
    example: async ({ ctx }) => ({ id: await exampleJob(ctx, only) }),
    handler: (ctx, { id }) => ownJob(ctx, id, 'read', only),
  });

const cancelJobAction = (only?: string) =>
  action({
    kind: 'write',
    description: 'Cancel a queued or running job; a finished one is answered as it is.',
    input: JobId,
    output: JobStarted,
    ...(only ? {} : { rest: { method: 'POST' as const, path: '/jobs/:id/cancel' } }),
    example: async ({ ctx }) => ({ id: await exampleJob(ctx, only) }),
    handler: async (ctx, { id }) => {
      await ownJob(ctx, id, 'write', only);
      return (await cancelJob(ctx.db, ctx.store.id, id, ctx.clock.now()))!;
    },
  });

/**
 * The sweeps' job: a finished one of the resource itself (no plugin's action starts one in every
 * registry), or of `plugin` for its own get_job / cancel_job tools (they answer only its jobs).
 */
async function exampleJob(ctx: { db: Ctx['db']; store: Ctx['store']; clock: Ctx['clock'] }, plugin = 'jobs') {
  const [r] = await ctx.db.query(
    `INSERT INTO jobs (id, store_id, type, status, result, created_at, started_at, finished_at)
     VALUES (gen_random_uuid(), $1, $3, 'succeeded', 'null', $2, $2, $2) RETURNING id`,
    [ctx.store.id, ctx.clock.now(), `${plugin}.example`],
  );
  return r.id as string;
}

const JobQuery = Input({
  ...ListParams,
  status: Type.Optional(Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)))),
  type: Type.Optional(Type.String({ maxLength: 200, description: "Only jobs of this type ('loyalty.on:order.paid')." })),
});

/** Tool actions a plugin whose actions start jobs gains. */
export const jobTools = (plugin: string): Record<string, ActionDef<any, any>> => ({
  get_job: getJobAction(plugin),
  cancel_job: cancelJobAction(plugin),
});

/**
 * The REST resource. Its route scopes are every scope of the plugins (a job of any of them may be
 * asked for); each job is then held to its own plugin's scopes.
 */
export function jobsPlugin(defs: readonly PluginDef[]): PluginDef {
  const all = (k: 'read' | 'write') => [...new Set(defs.flatMap((p) => (p.tool === false ? [] : p.scopes[k])))];
  return {
    name: 'jobs',
    category: 'platform',
    description: 'Long work started by actions, and reactions to events: status, progress, result; cancel.',
    resource: 'job',
    tool: false,
    scopes: { read: all('read'), write: all('write') },
    actions: {
      list_jobs: action({
        kind: 'read',
        description: 'The store’s followed jobs, newest first; filter by status or type (a failing reaction shows here by name).',
        input: JobQuery,
        output: ListOf(JobStarted),
        rest: { method: 'GET', path: '/jobs' },
        handler: (ctx, input) => {
          // Only jobs of plugins the caller may read.
          const readable = [...ctx.registry.byName.values()].filter((p) => mayRead(ctx, p)).map((p) => p.name);
          const filters = { "split_part(type, '.', 1) = ANY($::text[])": readable, 'status = $': input.status, 'type = $': input.type };
          return listPage(ctx, { table: 'jobs', path: '/jobs', input, filters }, (rows) => rows.map(toJob));
        },
      }),
      get_job: getJobAction(),
      cancel_job: cancelJobAction(),
    },
  };
}
