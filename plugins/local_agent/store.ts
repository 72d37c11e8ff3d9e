import { errors, fail, iso, type Ctx } from '../../core/sdk';
import { insertJob } from '../../core/platform';
import { statusOf, type NodeRow } from './nodes';
import { TASK_CHANNEL, type Task } from './tasks';
import { requireInstanceTools } from './trust';

export const toNode = (r: NodeRow, now: Date) => ({
  object: 'node' as const,
  id: r.id,
  host: r.host,
  role: r.role,
  version: r.version,
  pid: r.pid,
  started_at: iso(r.started_at),
  heartbeat_at: iso(r.heartbeat_at),
  load: r.load,
  queues: r.queues,
  status: statusOf(r, now),
  recent_tasks: r.recent_tasks as Record<string, unknown>[],
});

export async function listNodes(ctx: Ctx) {
  await requireInstanceTools(ctx);
  const rows = await ctx.db.query<NodeRow>('SELECT * FROM local_agent_nodes ORDER BY started_at, id');
  const now = ctx.clock.now();
  return { object: 'list' as const, data: rows.map((r) => toNode(r, now)), has_more: false, url: `${ctx.storePath}/local-agent/nodes` };
}

export async function getNode(ctx: Ctx, id: string) {
  await requireInstanceTools(ctx);
  const [r] = await ctx.db.query<NodeRow>('SELECT * FROM local_agent_nodes WHERE id = $1', [id]);
  if (!r) throw errors.notFound(`node: '${id}'`, 'id');
  return toNode(r, ctx.clock.now());
}

/**
 * A task for one node, or the longest-running live node of a role: a job the node runs in its own
 * process (tasks.ts). A stale node takes none (409): it may never run it.
 */
export async function runTask(ctx: Ctx, input: { task: Task; node_id?: string; role?: 'api' | 'worker' | 'all' }) {
  await requireInstanceTools(ctx);
  if (!input.node_id === !input.role) throw errors.validation('Give exactly one of node_id and role.', input.node_id ? 'role' : 'node_id');
  if (input.task === 'backup' && ctx.db.kind !== 'pglite')
    throw fail(
      'backup_needs_embedded_database',
      'backup copies the embedded database; on PostgreSQL use pg_dump or your provider’s backups.',
      'task',
    );
  const now = ctx.clock.now();
  const rows = await ctx.db.query<NodeRow>(
    input.node_id ? 'SELECT * FROM local_agent_nodes WHERE id = $1' : 'SELECT * FROM local_agent_nodes WHERE role = $1 ORDER BY started_at, id',
    [input.node_id ?? input.role],
  );
  const node = input.node_id ? rows[0] : rows.find((r) => statusOf(r, now) === 'live');
  if (!node) {
    if (input.node_id) throw errors.notFound(`node: '${input.node_id}'`, 'node_id');
    throw fail('no_live_node', `No live node has the role '${input.role}'.`, 'role');
  }
  if (statusOf(node, now) !== 'live')
    throw fail('node_stale', `Node ${node.id} has sent no heartbeat for over 15 s: it may never run the task.`, 'node_id');
  const job = await insertJob(ctx.db, ctx.store.id, 'local_agent.run_task', now);
  await ctx.db.query(`INSERT INTO local_agent_tasks (id, store_id, node_id, task, status, created_at) VALUES ($1, $2, $3, $4, 'queued', $5)`, [
    job.id,
    ctx.store.id,
    node.id,
    input.task,
    now,
  ]);
  // Heard by that node once this commits (it polls every second too).
  await ctx.db.query('SELECT pg_notify($1, $2)', [TASK_CHANNEL, node.id]);
  return job;
}
