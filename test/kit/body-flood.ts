export {};
/**
 * A separate process of clients that each send 100 MiB (test/conventions/body-limits.test.ts), so
 * the server's memory is measured alone. Usage: bun body-flood.ts <base url> <api key> <path>...
 * One client per path; odd ones stream their body in chunks with no length, even ones declare it.
 * Prints the statuses as a JSON array.
 */
const [base, key, ...paths] = process.argv.slice(2);
const MiB = 1024 * 1024;
const declared = new Uint8Array(100 * MiB);

function chunked(total: number) {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      sent += chunk.byteLength;
      c.enqueue(sent === chunk.byteLength ? new TextEncoder().encode('{"a":"') : chunk);
    },
  });
}

const statuses = await Promise.all(
  paths.map((path, i) =>
    fetch(base + path, {
      method: 'POST',
      body: i % 2 ? chunked(100 * MiB) : declared,
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      duplex: 'half',
    } as RequestInit)
      .then(async (r) => (await r.arrayBuffer(), r.status))
      .catch(() => 0),
  ),
);
console.log(JSON.stringify(statuses));
