import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backend } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { ADMIN_TOKEN, setup } from '../../test/kit/setup';

type Seen = { method: string; path: string; headers: Headers; body: any };

/** A fake Docker Engine API on 127.0.0.1: containers create, start, list, stop, delete. */
function fakeDocker() {
  const seen: Seen[] = [];
  const containers = new Map<string, { labels: Record<string, string>; state: string }>();
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === 'POST' && req.headers.get('content-length') !== '0' ? await req.json().catch(() => null) : null;
      seen.push({ method: req.method, path: url.pathname + url.search, headers: req.headers, body });
      let m: RegExpMatchArray | null;
      if (req.method === 'POST' && url.pathname === '/containers/create') {
        const id = crypto.randomUUID().replaceAll('-', '');
        containers.set(id, { labels: body.Labels, state: 'created' });
        return Response.json({ Id: id, Warnings: [] }, { status: 201 });
      }
      if ((m = url.pathname.match(/^\/containers\/(\w+)\/(start|stop)$/)) && req.method === 'POST') {
        const c = containers.get(m[1]);
        if (!c) return Response.json({ message: 'No such container' }, { status: 404 });
        c.state = m[2] === 'start' ? 'running' : 'exited';
        return new Response(null, { status: 204 });
      }
      if ((m = url.pathname.match(/^\/containers\/(\w+)$/)) && req.method === 'DELETE') {
        containers.delete(m[1]);
        return new Response(null, { status: 204 });
      }
      if (url.pathname === '/containers/json') {
        const label: string = JSON.parse(url.searchParams.get('filters')!).label[0];
        const [k, v] = label.split('=');
        return Response.json([...containers].filter(([, c]) => c.labels[k] === v).map(([Id, c]) => ({ Id, State: c.state })));
      }
      return Response.json({ message: 'page not found' }, { status: 404 });
    },
  });
  return { url: `tcp://127.0.0.1:${server.port}`, seen, containers, stop: () => server.stop(true) };
}

/** A fake Kubernetes API server: one Deployment's scale subresource. */
function fakeKubernetes(replicas: number) {
  const seen: Seen[] = [];
  const path = '/apis/apps/v1/namespaces/shop/deployments/svc-worker/scale';
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === 'PATCH' ? await req.json() : null;
      seen.push({ method: req.method, path: url.pathname, headers: req.headers, body });
      if (url.pathname !== path) return Response.json({ kind: 'Status', code: 404 }, { status: 404 });
      if (req.headers.get('authorization') !== 'Bearer sa-token-123') return Response.json({ kind: 'Status', code: 401 }, { status: 401 });
      if (req.method === 'PATCH') {
        if (req.headers.get('content-type') !== 'application/merge-patch+json') return new Response('bad patch type', { status: 415 });
        replicas = body.spec.replicas;
      }
      return Response.json({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas }, status: { replicas } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, replicas: () => replicas, stop: () => server.stop(true) };
}

const docker = fakeDocker();
const kube = fakeKubernetes(1);
const tokenFile = join(mkdtempSync(join(tmpdir(), 'svc-k8s-')), 'token');
writeFileSync(tokenFile, 'sa-token-123\n');
afterAll(() => {
  docker.stop();
  kube.stop();
});

const PG_URL = 'postgres://svc@db.internal:5432/svc';
const env = {
  DATABASE_URL: PG_URL,
  SVC_SECRET_KEY: 'k'.repeat(43) + '=',
  DOCKER_HOST: docker.url,
  SVC_DOCKER_IMAGE: 'ghcr.io/example/svc:1.0',
  SVC_K8S_API_URL: kube.url,
  SVC_K8S_TOKEN_FILE: tokenFile,
  SVC_K8S_NAMESPACE: 'shop',
};
async function trusted(e: Record<string, string | undefined> = env) {
  const h = await setup({ env: e });
  await h.raw('PATCH', `/v1/stores/${h.store.id}`, { instance_tools: true }, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' });
  return h;
}

test('an untrusted store gets 403 instance_tools_not_allowed and nothing starts', async () => {
  const h = await setup({ env });
  const before = docker.seen.length;
  const r = await h.call('POST', '/clusters', { adapter: 'docker', role: 'worker', count: 1 });
  expect(r.status).toBe(403);
  expect(r.body.error.code).toBe('instance_tools_not_allowed');
  expect(docker.seen.length).toBe(before);
});

test('docker: containers of the image are created with the database, the secret key and the role, started, listed, stopped and removed', async () => {
  const h = await trusted();
  const r = await h.call('POST', '/clusters', { adapter: 'docker', role: 'worker', count: 2 });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ object: 'cluster', adapter: 'docker', role: 'worker', count: 2, status: 'running' });
  const creates = docker.seen.filter((s) => s.path.startsWith('/containers/create'));
  expect(creates.slice(-2).map((c) => c.body)).toEqual(
    [0, 1].map(() => expect.objectContaining({ Image: 'ghcr.io/example/svc:1.0', Cmd: ['serve', '--role', 'worker'] })),
  );
  expect(creates.at(-1)!.body.Env).toEqual(expect.arrayContaining([`DATABASE_URL=${PG_URL}`, `SVC_SECRET_KEY=${env.SVC_SECRET_KEY}`]));
  const ids = r.body.nodes.map((n: any) => n.container_id);
  for (const id of ids) expect(docker.containers.get(id)?.state).toBe('running');
  const status = await h.call('GET', `/clusters/${r.body.id}`);
  expect(status.body.nodes.map((n: any) => n.state)).toEqual(['running', 'running']);
  const ended = await h.call('POST', `/clusters/${r.body.id}/terminate`);
  expect(ended.body).toMatchObject({ status: 'terminated' });
  for (const id of ids) {
    expect(docker.seen.some((s) => s.method === 'POST' && s.path === `/containers/${id}/stop?t=30`)).toBe(true);
    expect(docker.containers.has(id)).toBe(false);
  }
  // Another store never sees it.
  const other = await trusted();
  expect((await other.call('GET', `/clusters/${r.body.id}`)).status).toBe(404);
});

test('docker and kubernetes without their settings are 400 provider_not_configured naming them', async () => {
  const h = await trusted({ DATABASE_URL: PG_URL });
  const d = await h.call('POST', '/clusters', { adapter: 'docker', role: 'worker', count: 1 });
  expect(d.status).toBe(400);
  expect(d.body.error).toMatchObject({ code: 'provider_not_configured' });
  expect(d.body.error.message).toContain('DOCKER_HOST');
  const k = await h.call('POST', '/clusters', { adapter: 'kubernetes', role: 'worker', count: 1 });
  expect(k.status).toBe(400);
  expect(k.body.error.message).toContain('SVC_K8S_API_URL');
});

test("kubernetes: the Deployment's scale grows by count with the service account's token, and terminate takes them away", async () => {
  const h = await trusted();
  const r = await h.call('POST', '/clusters', { adapter: 'kubernetes', role: 'worker', count: 2 });
  expect(r.status).toBe(201);
  expect(kube.replicas()).toBe(3);
  expect(kube.seen.at(-1)!.body).toEqual({ spec: { replicas: 3 } });
  expect((await h.call('GET', `/clusters/${r.body.id}`)).body.nodes[0]).toMatchObject({ deployment: 'svc-worker', desired: 3, current: 3 });
  await h.call('POST', `/clusters/${r.body.id}/terminate`);
  expect(kube.replicas()).toBe(1);
  // Terminated once: again changes nothing.
  await h.call('POST', `/clusters/${r.body.id}/terminate`);
  expect(kube.replicas()).toBe(1);
  expect((await h.call('POST', '/clusters', { adapter: 'kubernetes', role: 'api', count: 1 })).body.error.code).toBe('adapter_role_unsupported');
});

test('local without DATABASE_URL is 400 naming it: the embedded database admits one process', async () => {
  const h = await trusted({});
  const r = await h.call('POST', '/clusters', { adapter: 'local', role: 'worker', count: 1 });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'provider_not_configured' });
  expect(r.body.error.message).toContain('DATABASE_URL');
});

test.skipIf(backend !== 'postgres')(
  'local, for real on PostgreSQL: two worker processes start and register as nodes; terminate stops them gracefully and they leave (skipped on the embedded database: it admits one process)',
  async () => {
    const url = (globalThis as any).__svcTestDbUrl as string;
    const h = await trusted({ DATABASE_URL: url });
    const r = await h.call('POST', '/clusters', { adapter: 'local', role: 'worker', count: 2 });
    expect(r.status).toBe(201);
    const pids: number[] = r.body.nodes.map((n: any) => n.pid);
    const registered = async () =>
      (await h.db.query<{ pid: number; role: string }>('SELECT pid, role FROM local_agent_nodes WHERE pid = ANY($1::int[])', [pids])).filter(
        (n) => n.role === 'worker',
      ).length;
    for (let i = 0; i < 600 && (await registered()) < 2; i++) await Bun.sleep(100);
    expect(await registered()).toBe(2);
    expect((await h.call('GET', `/clusters/${r.body.id}`)).body.nodes.map((n: any) => n.state)).toEqual(['running', 'running']);
    const ended = await h.call('POST', `/clusters/${r.body.id}/terminate`);
    expect(ended.body.status).toBe('terminated');
    expect(ended.body.nodes.map((n: any) => n.state)).toEqual(['exited', 'exited']);
    // A clean stop: each removed its own node at once.
    expect(await registered()).toBe(0);
  },
  90_000,
);

test('over MCP: launch_cluster launch and get_status with the docker adapter', async () => {
  const h = await trusted();
  const { client } = await mcpClient(h);
  const made: any = await client.callTool({ name: 'launch_cluster', arguments: { action: 'launch', adapter: 'docker', role: 'api', count: 1 } });
  expect(made.isError).toBeFalsy();
  const cluster = JSON.parse(made.content[0].text);
  const got: any = await client.callTool({ name: 'launch_cluster', arguments: { action: 'get_status', id: cluster.id } });
  await client.close();
  expect(JSON.parse(got.content[0].text)).toMatchObject({ id: cluster.id, role: 'api', nodes: [{ state: 'running' }] });
});
