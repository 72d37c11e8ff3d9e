import { definePlugin, type PluginDef } from '../../core/sdk';
import { WEBHOOK_QUEUE } from '../../core/platform';
import migration001 from './migrations/001_nodes.sql' with { type: 'text' };
import { startNode, type Role } from './nodes';

/** The job queues a process of this role works: none for api; every declared job and reaction queue otherwise. */
const queuesOf = (plugins: readonly PluginDef[], role: Role) =>
  role === 'api'
    ? []
    : [WEBHOOK_QUEUE, ...plugins.flatMap((p) => [...Object.keys(p.jobs ?? {}).map((j) => `${p.name}.${j}`), ...(p.on ? [`${p.name}.on`] : [])])];

/**
 * SPEC 4.10 `local_agent`: the processes of this instance as nodes (README.md). Every `svc serve`
 * registers itself at start and leaves at a clean stop.
 */
const local_agent = definePlugin({
  name: 'local_agent',
  category: 'platform',
  description: 'The processes of this svc instance (nodes): role, version, load, heartbeat.',
  resource: 'node',
  scopes: { read: ['platform', 'platform:write'], write: ['platform', 'platform:write'] },
  tables: ['local_agent_nodes'],
  migrations: [{ id: 'local_agent/001_nodes', sql: migration001 }],
  actions: {},
  start: async ({ db, clock, registry, role }) => {
    const node = await startNode(db, clock, role, queuesOf(registry.plugins, role));
    return { stop: () => node.stop() };
  },
});
export default local_agent;
