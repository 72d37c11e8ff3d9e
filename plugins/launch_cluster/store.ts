import { errors, fail, iso, type Ctx } from '../../core/sdk';
import { requireInstanceTools } from '../local_agent/public';
import type { LaunchSettings } from './config';
import { launchLocal, localState, terminateLocal } from './local';
import { dockerStates, kubernetesState, launchDocker, scaleKubernetes, terminateDocker } from './remote';

type LCtx = Ctx<LaunchSettings>;
type Node = { kind: 'process'; pid: number } | { kind: 'container'; container_id: string } | { kind: 'replicas'; deployment: string; count: number };

const toCluster = (r: any, nodes: unknown[] = r.nodes) => ({
  object: 'cluster' as const,
  id: r.id,
  adapter: r.adapter,
  role: r.role,
  count: r.count,
  status: r.status,
  nodes: nodes as Record<string, unknown>[],
  created_at: iso(r.created_at),
  terminated_at: r.terminated_at ? iso(r.terminated_at) : null,
});

export async function launch(ctx: LCtx, input: { adapter: 'local' | 'docker' | 'kubernetes'; role: 'worker' | 'api'; count: number }) {
  await requireInstanceTools(ctx);
  const id = crypto.randomUUID();
  let nodes: Node[];
  if (input.adapter === 'local') nodes = launchLocal(ctx.config, input.role, input.count);
  else if (input.adapter === 'docker') nodes = await launchDocker(ctx.config, id, input.role, input.count);
  else {
    if (input.role !== 'worker')
      throw fail('adapter_role_unsupported', 'The kubernetes adapter scales the worker Deployment (SVC_K8S_DEPLOYMENT): role worker only.', 'role');
    const scaled = await scaleKubernetes(ctx.config, input.count);
    nodes = [{ kind: 'replicas', deployment: scaled.deployment, count: input.count }];
  }
  const [r] = await ctx.db.query(
    `INSERT INTO launch_cluster_clusters (id, store_id, adapter, role, count, status, nodes, created_at)
     VALUES ($1, $2, $3, $4, $5, 'running', $6::text::jsonb, $7) RETURNING *`,
    [id, ctx.store.id, input.adapter, input.role, input.count, JSON.stringify(nodes), ctx.clock.now()],
  );
  return toCluster(r);
}

async function own(ctx: LCtx, id: string) {
  await requireInstanceTools(ctx);
  const [r] = await ctx.db.query('SELECT * FROM launch_cluster_clusters WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  if (!r) throw errors.notFound(`cluster: '${id}'`, 'id');
  return r;
}

/** The cluster with each node's state as its adapter reports it now. */
export async function clusterStatus(ctx: LCtx, id: string) {
  const r = await own(ctx, id);
  const nodes: Node[] = r.nodes;
  if (r.status === 'terminated') return toCluster(r);
  if (r.adapter === 'local')
    return toCluster(
      r,
      nodes.map((n: any) => ({ ...n, state: localState(n.pid) })),
    );
  if (r.adapter === 'docker') {
    const states = await dockerStates(ctx.config, r.id);
    return toCluster(
      r,
      nodes.map((n: any) => ({ ...n, state: states.get(n.container_id) ?? 'missing' })),
    );
  }
  const k = await kubernetesState(ctx.config);
  return toCluster(
    r,
    nodes.map((n) => ({ ...n, desired: k.desired, current: k.current })),
  );
}

/** Stops gracefully: each process gets SIGTERM and drains (its jobs handed back), then the record says terminated. */
export async function terminate(ctx: LCtx, id: string) {
  const r = await own(ctx, id);
  if (r.status === 'terminated') return toCluster(r);
  const nodes: Node[] = r.nodes;
  let after: unknown[] = nodes;
  if (r.adapter === 'local') after = await terminateLocal(nodes.map((n: any) => n.pid));
  else if (r.adapter === 'docker') {
    await terminateDocker(
      ctx.config,
      nodes.map((n: any) => n.container_id),
    );
    after = nodes.map((n) => ({ ...n, state: 'removed' }));
  } else {
    const scaled = await scaleKubernetes(ctx.config, -r.count);
    after = nodes.map((n) => ({ ...n, replicas_after: scaled.replicas }));
  }
  const [done] = await ctx.db.query(
    `UPDATE launch_cluster_clusters SET status = 'terminated', terminated_at = $3, nodes = $4::text::jsonb WHERE store_id = $1 AND id = $2 RETURNING *`,
    [ctx.store.id, id, ctx.clock.now(), JSON.stringify(after)],
  );
  return toCluster(done);
}
