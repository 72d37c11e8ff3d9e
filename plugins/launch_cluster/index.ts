import { Type } from '@sinclair/typebox';
import { actionFor, definePlugin, Input, invalid, noExample, Timestamp, Uuid, type ErrorDef, onFirstCall } from '../../core/sdk';
import { trustErrors } from '../local_agent/public';
import migration001 from './migrations/001_clusters.sql' with { type: 'text' };
import { LaunchConfig } from './config';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { clusterStatus, launch, terminate } = onFirstCall(() => import('./store'));

const action = actionFor(LaunchConfig);

const Cluster = Type.Object({
  object: Type.Literal('cluster'),
  id: Uuid(),
  adapter: Type.Union([Type.Literal('local'), Type.Literal('docker'), Type.Literal('kubernetes')]),
  role: Type.Union([Type.Literal('worker'), Type.Literal('api')]),
  count: Type.Integer(),
  status: Type.Union([Type.Literal('running'), Type.Literal('terminated')]),
  nodes: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'local: {pid, state}; docker: {container_id, state}; kubernetes: {deployment, count, desired, current}.',
  }),
  created_at: Timestamp(),
  terminated_at: Type.Union([Timestamp(), Type.Null()]),
});

const ClusterId = Input({ id: Uuid('The cluster id launch answered.') });
const orchestrator: ErrorDef = { status: 502, type: 'api_error', description: 'Docker or Kubernetes refused the request or could not be reached.' };

/**
 * SPEC 4.10 `launch_cluster`: more svc processes of a role, started by an adapter (README.md):
 * local child processes, Docker containers, or Kubernetes replicas; terminate stops them
 * gracefully. Only a store the operator trusts (`instance_tools`) may use it.
 */
export default definePlugin({
  name: 'launch_cluster',
  category: 'platform',
  description:
    'Start more svc processes (workers or API nodes) as local processes, Docker containers or Kubernetes replicas; read them; stop them gracefully.',
  resource: 'cluster',
  catalog: true,
  requires: ['local_agent'],
  // SPEC 5.4: platform or platform:write, reads too.
  scopes: { read: ['platform', 'platform:write'], write: ['platform', 'platform:write'] },
  tables: ['launch_cluster_clusters'],
  config: LaunchConfig,
  errors: {
    ...trustErrors,
    orchestrator_error: orchestrator,
    adapter_role_unsupported: invalid('The kubernetes adapter scales the worker Deployment only.'),
  },
  migrations: [{ id: 'launch_cluster/001_clusters', sql: migration001 }],
  actions: {
    launch: action({
      kind: 'write',
      description:
        'Start `count` processes of a role: adapter local (child processes; needs DATABASE_URL), docker (DOCKER_HOST, SVC_DOCKER_IMAGE) or kubernetes (scales SVC_K8S_DEPLOYMENT, workers only).',
      input: Input({
        adapter: Type.Union([Type.Literal('local'), Type.Literal('docker'), Type.Literal('kubernetes')]),
        role: Type.Union([Type.Literal('worker'), Type.Literal('api')]),
        count: Type.Integer({ minimum: 1, maximum: 20 }),
      }),
      output: Cluster,
      rest: { method: 'POST', path: '/clusters', status: 201 },
      errors: ['instance_tools_not_allowed', 'provider_not_configured', 'orchestrator_error', 'adapter_role_unsupported'],
      example: noExample('starts real processes or containers; launch_cluster.test.ts runs each adapter against PostgreSQL or a fake API'),
      handler: launch,
    }),
    get_status: action({
      kind: 'read',
      description: 'A cluster you launched, with the state of each of its processes as its adapter reports it now.',
      input: ClusterId,
      output: Cluster,
      rest: { method: 'GET', path: '/clusters/:id' },
      errors: ['instance_tools_not_allowed', 'orchestrator_error'],
      example: noExample('needs a launched cluster (launch_cluster.test.ts)'),
      handler: (ctx, { id }) => clusterStatus(ctx, id),
    }),
    terminate: action({
      kind: 'destructive',
      description: 'Stop a cluster gracefully: each process drains and hands its jobs back before it exits.',
      input: ClusterId,
      output: Cluster,
      rest: { method: 'POST', path: '/clusters/:id/terminate' },
      errors: ['instance_tools_not_allowed', 'orchestrator_error'],
      example: noExample('needs a launched cluster (launch_cluster.test.ts)'),
      handler: (ctx, { id }) => terminate(ctx, id),
    }),
  },
});
