/**
 * A real HTTPS webhook receiver for tests: node:https on 127.0.0.1 with a certificate for
 * `localhost` from a throwaway openssl CA (core/net/testkit.ts). Deliveries reach it through the
 * egress guard with `DELIVERY` (that CA trusted, localhost resolved to 127.0.0.1 and allowed).
 */
import { createServer, type Server } from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixed, makeTestCa } from './egress';
import type { DeliveryOptions } from '../../workers/webhooks';

export interface Received {
  path: string;
  headers: Record<string, string>;
  /** The exact bytes received, as text: what signatures are checked against. */
  raw: string;
  body: any;
}

type Answer = number | { status: number; body?: string; headers?: Record<string, string> };
/** Decides the answer to each request: a status (and optional body), possibly later. Default 200. */
export type Responder = (req: Received, nth: number) => Answer | Promise<Answer>;

let certs: { dir: string; ca: string } | undefined;

/** One CA per test process (openssl takes a moment). */
export function testCerts() {
  if (!certs) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-'));
    makeTestCa(dir, 'localhost');
    certs = { dir, ca: readFileSync(join(dir, 'ca.pem'), 'utf8') };
  }
  return certs;
}

/** Egress settings for in-process deliveries to the receiver. */
export function deliveryOptions(): DeliveryOptions {
  return { ca: testCerts().ca, resolver: fixed('127.0.0.1'), allow: ['127.0.0.1'] };
}

export async function startReceiver(respond: Responder = () => 200) {
  const { dir } = testCerts();
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let responder = respond;
  const server: Server = createServer({ key: readFileSync(join(dir, 'leaf.key')), cert: readFileSync(join(dir, 'leaf.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = JSON.parse(raw);
      } catch {}
      const r: Received = { path: req.url ?? '/', headers: req.headers as Record<string, string>, raw, body };
      received.push(r);
      for (const w of waiters.splice(0))
        if (received.length >= w.n) w.resolve();
        else waiters.push(w);
      void Promise.resolve(responder(r, received.length)).then((answer) => {
        const { status, body: text, headers } = typeof answer === 'number' ? { status: answer, body: 'ok', headers: {} } : answer;
        if (!res.destroyed) res.writeHead(status, headers).end(text ?? '');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path = '/hook') => `https://localhost:${port}${path}`,
    port,
    received,
    respond: (r: Responder) => void (responder = r),
    /** Resolves once `n` requests in all have arrived, or rejects after timeoutMs. */
    waitFor(n: number, timeoutMs = 20_000) {
      if (received.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
