/**
 * HTTP custom tools must use https (like webhooks), so tests serve tool endpoints over TLS on
 * 127.0.0.1 with the throwaway test CA's certificate for `localhost` (test/webhook-receiver.ts).
 */
import { join } from 'node:path';
import { systemResolver, type Resolver } from '../../core/net/egress';
import { setToolEgressDefaults, type RunOptions } from '../../core/tools/http-tool';
import { testCerts } from './webhook-receiver';

/** An HTTPS server on 127.0.0.1; its base URL names `localhost`, the name its certificate holds. */
export function serveTls(fetch: (req: Request) => Response | Promise<Response>) {
  const { dir } = testCerts();
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { key: Bun.file(join(dir, 'leaf.key')), cert: Bun.file(join(dir, 'leaf.pem')) },
    fetch,
  });
  return { server, url: `https://localhost:${server.port}` };
}

// localhost is 127.0.0.1 (the servers listen there); other names resolve as usual.
const resolver: Resolver = async (host) => (host === 'localhost' ? ['127.0.0.1'] : systemResolver(host));

/** Egress options that reach serveTls servers: the test CA trusted, localhost found, 127.0.0.1 allowed. */
export const localTls = (): RunOptions => ({ ca: testCerts().ca, resolver, allow: ['127.0.0.1'] });

/** Makes every HTTP tool run in this process reach serveTls servers; returns the undo. */
export function trustTestReceivers(): () => void {
  const { allow: _, ...tls } = localTls(); // the allow list stays SVC_EGRESS_ALLOW's, which tests set
  const before = setToolEgressDefaults(tls);
  return () => void setToolEgressDefaults(before);
}
