import { readFileSync } from 'node:fs';
import { errors, fail } from '../../core/sdk';
import type { LaunchSettings } from './config';

/**
 * The docker and kubernetes adapters, over their HTTP APIs. Their addresses are the operator's own
 * settings (DOCKER_HOST, the cluster's API server), so calls go straight there, not through the
 * egress guard that holds URLs a store supplies.
 */
async function call(url: string, init: RequestInit & { unix?: string; tls?: object }, what: string) {
  let res: Response;
  try {
    res = await fetch(url, init as RequestInit);
  } catch (e) {
    throw fail('orchestrator_error', `${what} could not be reached: ${(e as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw fail('orchestrator_error', `${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

// Docker Engine API (v1.43 paths are the same in every version since 1.24).
function docker(settings: LaunchSettings) {
  if (!settings.docker_host) throw errors.notConfigured('DOCKER_HOST', 'the docker adapter talks to the Docker Engine API there');
  if (!settings.docker_image) throw errors.notConfigured('SVC_DOCKER_IMAGE', 'the image of the containers the docker adapter starts');
  const host = settings.docker_host;
  const unix = host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
  const base = unix ? 'http://docker' : host.replace(/^tcp:\/\//, 'http://').replace(/\/$/, '');
  return (method: string, path: string, body?: unknown) =>
    call(
      `${base}${path}`,
      { method, ...(unix ? { unix } : {}), headers: { 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) },
      `Docker ${method} ${path.split('?')[0]}`,
    );
}

export async function launchDocker(settings: LaunchSettings, clusterId: string, role: string, count: number) {
  const api = docker(settings);
  if (!settings.database_url) throw errors.notConfigured('DATABASE_URL', 'containers share one PostgreSQL; the embedded database admits one process');
  const nodes = [];
  for (let i = 0; i < count; i++) {
    const made = await api('POST', `/containers/create?name=svc-${role}-${clusterId.slice(0, 8)}-${i + 1}`, {
      Image: settings.docker_image,
      Cmd: ['serve', '--role', role],
      Env: [`DATABASE_URL=${settings.database_url}`, ...(settings.secret_key ? [`SVC_SECRET_KEY=${settings.secret_key}`] : []), `SVC_ROLE=${role}`],
      Labels: { 'svc.cluster': clusterId, 'svc.role': role },
      HostConfig: { RestartPolicy: { Name: 'unless-stopped' } },
    });
    await api('POST', `/containers/${made.Id}/start`);
    nodes.push({ kind: 'container' as const, container_id: made.Id as string });
  }
  return nodes;
}

export async function dockerStates(settings: LaunchSettings, clusterId: string): Promise<Map<string, string>> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`svc.cluster=${clusterId}`] }));
  const list: { Id: string; State: string }[] = await docker(settings)('GET', `/containers/json?all=true&filters=${filters}`);
  return new Map(list.map((c) => [c.Id, c.State]));
}

/** `docker stop` sends SIGTERM and waits `t` seconds: svc drains and hands its jobs back. Then the container goes. */
export async function terminateDocker(settings: LaunchSettings, ids: string[]) {
  const api = docker(settings);
  for (const id of ids) {
    await api('POST', `/containers/${id}/stop?t=30`);
    await api('DELETE', `/containers/${id}`);
  }
}

// Kubernetes: the Deployment's scale subresource, with the pod's service account.
function kube(settings: LaunchSettings) {
  const base =
    settings.k8s_api_url ??
    (process.env.KUBERNETES_SERVICE_HOST
      ? `https://${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT ?? 443}`
      : undefined);
  if (!base)
    throw errors.notConfigured(
      'SVC_K8S_API_URL',
      'the kubernetes adapter scales a Deployment through the API server (in a pod it is found by itself)',
    );
  let token: string;
  try {
    token = readFileSync(settings.k8s_token_file, 'utf8').trim();
  } catch {
    throw errors.notConfigured('SVC_K8S_TOKEN_FILE', `no service-account token at ${settings.k8s_token_file}`);
  }
  let namespace = settings.k8s_namespace;
  if (!namespace)
    try {
      namespace = readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
    } catch {
      throw errors.notConfigured('SVC_K8S_NAMESPACE', "the Deployment's namespace (in a pod, its own)");
    }
  let ca: string | undefined;
  try {
    ca = readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/ca.crt', 'utf8');
  } catch {}
  const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(settings.k8s_deployment)}/scale`;
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  return {
    read: (): Promise<{ spec: { replicas: number }; status?: { replicas?: number } }> =>
      call(`${base}${path}`, { headers, ...(ca ? { tls: { ca } } : {}) }, 'Kubernetes GET scale'),
    set: (replicas: number) =>
      call(
        `${base}${path}`,
        {
          method: 'PATCH',
          headers: { ...headers, 'Content-Type': 'application/merge-patch+json' },
          body: JSON.stringify({ spec: { replicas } }),
          ...(ca ? { tls: { ca } } : {}),
        },
        'Kubernetes PATCH scale',
      ),
  };
}

/** Adds `count` replicas; terminate takes the same number away (Kubernetes sends SIGTERM; svc drains). */
export async function scaleKubernetes(settings: LaunchSettings, delta: number) {
  const k = kube(settings);
  const now = await k.read();
  const replicas = Math.max(0, (now.spec?.replicas ?? 0) + delta);
  const after = await k.set(replicas);
  return { deployment: settings.k8s_deployment, replicas: after?.spec?.replicas ?? replicas };
}

export async function kubernetesState(settings: LaunchSettings) {
  const now = await kube(settings).read();
  return { deployment: settings.k8s_deployment, desired: now.spec?.replicas ?? 0, current: now.status?.replicas ?? 0 };
}
