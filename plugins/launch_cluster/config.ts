import { Type, type Static } from '@sinclair/typebox';

const opt = (env: string, description: string) => Type.Optional(Type.String({ env, description }));

export const LaunchConfig = Type.Object({
  database_url: opt('DATABASE_URL', 'The PostgreSQL the launched processes share (the embedded database admits one process).'),
  secret_key: opt('SVC_SECRET_KEY', 'Handed to launched processes: every node seals and opens secrets with the same key.'),
  command: opt('SVC_LAUNCH_COMMAND', 'local: the command that starts svc (space-separated), default this binary or `bun <cli.ts>`.'),
  docker_host: opt('DOCKER_HOST', 'docker: the Engine API (tcp://host:2375, http://host:2375 or unix:///var/run/docker.sock).'),
  docker_image: opt('SVC_DOCKER_IMAGE', "docker: the svc image containers run ('ghcr.io/you/svc:1.2')."),
  k8s_api_url: opt('SVC_K8S_API_URL', 'kubernetes: the API server; in a pod, https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.'),
  k8s_token_file: Type.String({
    env: 'SVC_K8S_TOKEN_FILE',
    default: '/var/run/secrets/kubernetes.io/serviceaccount/token',
    description: "kubernetes: the service account's token.",
  }),
  k8s_namespace: opt('SVC_K8S_NAMESPACE', "kubernetes: the Deployment's namespace; in a pod, its own."),
  k8s_deployment: Type.String({ env: 'SVC_K8S_DEPLOYMENT', default: 'svc-worker', description: 'kubernetes: the Deployment scaled.' }),
});
export type LaunchSettings = Static<typeof LaunchConfig>;
