import { Type } from '@sinclair/typebox';
import {
  action,
  conflict,
  definePlugin,
  Input,
  invalid,
  JobStarted,
  ListOf,
  noExample,
  Timestamp,
  Uuid,
  type PluginDef,
  onFirstCall,
} from '../../core/sdk';
import { WEBHOOK_QUEUE } from '../../core/platform';
import migration001 from './migrations/001_nodes.sql' with { type: 'text' };
import migration002 from './migrations/002_tasks.sql' with { type: 'text' };
import type { Role } from './nodes';
import { TASKS } from './tasks';
import { trustErrors, trustStore } from './trust';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { startNode } = onFirstCall(() => import('./nodes'));
const { getNode, listNodes, runTask } = onFirstCall(() => import('./store'));

/** The job queues a process of this role works: none for api; every declared job and reaction queue otherwise. */
const queuesOf = (plugins: readonly PluginDef[], role: Role) =>
  role === 'api'
    ? []
    : [WEBHOOK_QUEUE, ...plugins.flatMap((p) => [...Object.keys(p.jobs ?? {}).map((j) => `${p.name}.${j}`), ...(p.on ? [`${p.name}.on`] : [])])];

const RoleName = Type.Union([Type.Literal('api'), Type.Literal('worker'), Type.Literal('all')]);

const Node = Type.Object({
  object: Type.Literal('node'),
  id: Uuid(),
  host: Type.String(),
  role: RoleName,
  version: Type.String(),
  pid: Type.Integer(),
  started_at: Timestamp(),
  heartbeat_at: Timestamp(),
  load: Type.Object(
    { load_average: Type.Array(Type.Number()), rss_bytes: Type.Number() },
    { description: 'Load average (1, 5, 15 min) and resident memory.' },
  ),
  queues: Type.Array(Type.String(), { description: 'The job queues it works (none for role api).' }),
  status: Type.Union([Type.Literal('live'), Type.Literal('stale')], { description: 'stale: no heartbeat for 15 s (removed 5 minutes later).' }),
  recent_tasks: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Its last 10 run_task outcomes, newest first.' }),
});

/** Sweeps: the store is trusted first, as the operator would. */
const trusted =
  <T extends object>(input: T) =>
  async ({ ctx }: { ctx: { db: any; store: { id: string } } }) => {
    await trustStore(ctx.db, ctx.store.id);
    return input;
  };

/**
 * SPEC 4.10 `local_agent`: the processes of this instance as nodes, and tasks run on one of them
 * (README.md). Every `svc serve` registers itself at start and leaves at a clean stop. Only a
 * store the operator trusts (`instance_tools`) may use it.
 */
const local_agent = definePlugin({
  name: 'local_agent',
  // embeddings' and analytics' public.ts: the reindex_embeddings and rebuild_rollups tasks (their tables are their own SQL).
  requires: ['embeddings', 'analytics'],
  category: 'platform',
  description: 'The processes (nodes) of this svc instance: role, version, load, heartbeat; run maintenance tasks (analyze, backup) on one.',
  resource: 'node',
  catalog: true,
  // SPEC 5.4: platform or platform:write, reads too.
  scopes: { read: ['platform', 'platform:write'], write: ['platform', 'platform:write'] },
  tables: ['local_agent_nodes', 'local_agent_tasks'],
  errors: {
    ...trustErrors,
    backup_needs_embedded_database: invalid('backup copies the embedded database; PostgreSQL has its own backups.'),
    no_live_node: conflict('No live node has that role.'),
    node_stale: conflict('The node has sent no heartbeat for over 15 s.'),
  },
  migrations: [
    { id: 'local_agent/001_nodes', sql: migration001 },
    { id: 'local_agent/002_tasks', sql: migration002 },
  ],
  actions: {
    list_nodes: action({
      kind: 'read',
      description: 'Every process of this instance: host, role, version, pid, load, queues, live or stale, its recent tasks.',
      input: Input({}),
      output: ListOf(Node),
      rest: { method: 'GET', path: '/local-agent/nodes' },
      errors: ['instance_tools_not_allowed'],
      example: trusted({}),
      handler: listNodes,
    }),
    get_node: action({
      kind: 'read',
      description: 'One node by id, with its last 10 tasks.',
      input: Input({ id: Uuid('The node id (list_nodes).') }),
      output: Node,
      rest: { method: 'GET', path: '/local-agent/nodes/:id' },
      errors: ['instance_tools_not_allowed'],
      example: noExample('nodes are processes, not resources an action makes; they are the same in every trusted store (local_agent.test.ts)'),
      handler: (ctx, { id }) => getNode(ctx, id),
    }),
    run_task: action({
      kind: 'write',
      description:
        'Run a maintenance task on one node (node_id) or the first live node of a role: analyze (planner statistics), reindex_embeddings (the embeddings table\u2019s indexes rebuilt), rebuild_rollups (analytics\u2019 daily rollups recomputed from the orders, every store) or backup (the embedded database to the data directory’s backups/; 400 on PostgreSQL). Answers the job; its result is also in the node’s recent_tasks.',
      input: Input({
        task: Type.Union(TASKS.map((t) => Type.Literal(t))),
        node_id: Type.Optional(Uuid('The node to run it (list_nodes).')),
        role: Type.Optional(RoleName),
      }),
      output: JobStarted,
      startsJob: true,
      rest: { method: 'POST', path: '/local-agent/tasks', status: 202 },
      errors: ['instance_tools_not_allowed', 'backup_needs_embedded_database', 'no_live_node', 'node_stale'],
      example: noExample('needs a live node process, which the sweeps do not start (local_agent.test.ts runs one)'),
      handler: runTask,
    }),
  },
  start: async ({ db, clock, registry, role }) => {
    const node = await startNode(db, clock, role, queuesOf(registry.plugins, role));
    return { stop: () => node.stop() };
  },
});
export default local_agent;
