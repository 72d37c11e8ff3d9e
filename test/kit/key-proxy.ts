/**
 * A loopback proxy that adds an API key to every request: outside MCP test clients (the
 * conformance suite) cannot send credentials themselves. Host and Origin pass through untouched,
 * so the DNS-rebinding checks still see what the client sent.
 */
export function keyProxy(target: string, key: string) {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch: async (req) => {
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.set('x-api-key', key);
      const upstream = await fetch(new URL(url.pathname + url.search, target), {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer(),
        redirect: 'manual',
        // @ts-ignore Bun: keep the client's Host header as sent
        decompress: false,
      });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
}

if (import.meta.main) {
  const [target, key] = process.argv.slice(2);
  const p = keyProxy(target, key);
  console.log(`http://127.0.0.1:${p.port}`);
}
