/**
 * Baseline 1: the cheapest possible HTTP answer on this machine, a bare Bun.serve returning a
 * constant small JSON body. Everything else is measured against it to show what HTTP costs alone.
 */
import { announce } from './child';

const BODY = '{"object":"ping","ok":true}';

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: () => new Response(BODY, { headers: { 'Content-Type': 'application/json' } }),
});
announce(server.port!);
