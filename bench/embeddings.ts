/**
 * `bun bench/embeddings.ts`: embeddings' `query_similar` over many stored vectors (issue 47), with
 * pgvector's HNSW index and with the exact search over `real[]`, on PostgreSQL (a throwaway
 * database at DATABASE_URL). Prints a markdown table for docs/benchmarks.md.
 *
 * One store holds BENCH_VECTORS unit vectors of BENCH_DIMS dimensions (seeded in SQL, not
 * measured); the HNSW index is built after the seed (its build time is printed). Each query goes
 * through the whole action in process (REST routing, auth, a local fake of OpenAI's /embeddings
 * answering the query's vector), so the figures are what a client waits, less the network. The
 * exact search is the same server with SVC_EMBEDDINGS_PGVECTOR=false. Recall@limit is how many of
 * the exact top `limit` the index path found.
 *
 *   BENCH_VECTORS  stored vectors (default 100000)
 *   BENCH_DIMS     their dimensions (default 256; text-embedding-3-small takes `dimensions`)
 *   BENCH_QUERIES  queries per path (default 30; the exact path runs min(10, this))
 *   BENCH_LIMIT    query_similar's limit (default 10)
 *   BENCH_CLUSTERS topics the vectors gather around (default 1000; 0: uniform random vectors)
 *   SVC_EMBEDDINGS_EF_SEARCH  the index walk's candidates (default 200, as svc's)
 *   DATABASE_URL   server to create the throwaway database on (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { loadavg } from 'node:os';
import { closeSharedDb } from '../test/kit/db';
import { setup } from '../test/kit/setup';
import { whole } from '../test/kit/fake-models';
import { ensureIndex, pgvectorOn } from '../plugins/embeddings/vector-index';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const VECTORS = Number(process.env.BENCH_VECTORS ?? 100_000);
const DIMS = Number(process.env.BENCH_DIMS ?? 256);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 30);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 10);
const EF_SEARCH = process.env.SVC_EMBEDDINGS_EF_SEARCH ?? '200';
const log = (line: string) => console.error(line);

/** A seeded generator of numbers in [-0.5, 0.5). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32 - 0.5);
}
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/**
 * Texts' embeddings are not uniform noise: they gather by topic. The vectors are CLUSTERS topics
 * (random unit centres) with each point its centre plus noise (a third of its length), and each
 * query lies near one topic too. BENCH_CLUSTERS=0 seeds uniform random vectors instead, HNSW's
 * worst case (no structure: every neighbour is about as far as any other).
 */
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1000);
const SPREAD = 1 / 3;
const centres = Array.from({ length: Math.max(1, CLUSTERS) }, (_, k) => {
  const r = rng(k + 1);
  return unit(Array.from({ length: DIMS }, r));
});
function vectorOf(seed: number): number[] {
  const r = rng(seed * 7919 + 13);
  if (!CLUSTERS) return unit(Array.from({ length: DIMS }, r));
  const c = centres[(seed * 37) % CLUSTERS];
  return unit(c.map((x) => x + (r() * 2 * SPREAD * Math.sqrt(3)) / Math.sqrt(DIMS)));
}

// OpenAI's /embeddings, answering each query text `q<n>` with vectorOf(n).
const fake = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = (await req.json()) as { input: string[] };
    const r = whole.embeddings(body.input.map((t) => vectorOf(Number(t.slice(1)) + 1)));
    return new Response('body' in r ? r.body : '', { headers: { 'content-type': 'application/json' } });
  },
});
const env = { OPENAI_BASE_URL: `http://127.0.0.1:${fake.port}/v1`, SVC_EMBEDDINGS_EF_SEARCH: EF_SEARCH };

try {
  const h = await setup({ env });
  if (!(await pgvectorOn(h.db))) throw new Error('This PostgreSQL has no pgvector 0.8+: only the exact search could be measured.');
  const key = await h.newKey([...h.registry.grantable]);
  log(`seeding ${VECTORS} vectors of ${DIMS} dimensions ...`);
  let t = performance.now();
  // The centres as a table, then each point made in SQL from one (uniform noise of the same spread as the queries').
  await h.db.query('CREATE TEMP TABLE bench_centres (k int PRIMARY KEY, v real[])');
  await h.db.query('INSERT INTO bench_centres SELECT k - 1, v::real[] FROM unnest($1::text[]) WITH ORDINALITY AS t(v, k)', [
    centres.map((c) => `{${c.join(',')}}`),
  ]);
  const noise = (2 * SPREAD * Math.sqrt(3)) / Math.sqrt(DIMS);
  for (let done = 0; done < VECTORS; done += 10_000) {
    const n = Math.min(10_000, VECTORS - done);
    await h.db.query(
      `INSERT INTO embeddings (id, store_id, metadata, content, content_hash, model, dimensions, vector, created_at, updated_at)
       SELECT gen_random_uuid(), $1, '{}', 'text ' || (g + $4), md5(g::text), 'text-embedding-3-small', $2,
              (SELECT array_agg(x / norm ORDER BY i) FROM (SELECT i, x, sqrt(sum(x * x) OVER ()) AS norm FROM (
                 SELECT i, CASE WHEN $6 THEN c.v[i] ELSE 0 END + (random() - 0.5) * $5 AS x
                   FROM generate_series(1, $2) AS i, bench_centres c WHERE c.k = (g + $4) % $7) r) u)::real[],
              now(), now()
         FROM generate_series(1, $3::int) AS g`,
      [h.store.id, DIMS, n, done, CLUSTERS ? noise : 1, CLUSTERS > 0, Math.max(1, CLUSTERS)],
    );
  }
  await h.db.query('ANALYZE embeddings');
  log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s; building the HNSW index ...`);
  t = performance.now();
  await h.db.query(`SET maintenance_work_mem = '512MB'`).catch(() => {});
  await ensureIndex(h.db, DIMS);
  const buildS = (performance.now() - t) / 1000;
  log(`index built in ${buildS.toFixed(1)} s`);

  const exact = await h.elsewhere({ ...env, SVC_EMBEDDINGS_PGVECTOR: 'false' });
  async function run(who: typeof h | typeof exact, n: number) {
    const times: number[] = [];
    const answers: string[][] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await who.call('GET', `/embeddings/similar?query=q${i}&limit=${LIMIT}`, undefined, { 'x-api-key': key });
      times.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`query_similar answered ${r.status}: ${JSON.stringify(r.body)}`);
      answers.push(r.body.data.map((d: { id: string }) => d.id));
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
    return { answers, p50: at(0.5), p95: at(0.95), perS: (1000 * n) / times.reduce((a, b) => a + b, 0) };
  }
  await run(h, 3); // warm-up: plans, the index's pages
  const withIndex = await run(h, QUERIES);
  const nExact = Math.min(10, QUERIES);
  await run(exact, 1);
  const withoutIndex = await run(exact, nExact);
  let found = 0;
  for (let i = 0; i < nExact; i++) found += withoutIndex.answers[i].filter((id) => withIndex.answers[i].includes(id)).length;
  const recall = found / (nExact * LIMIT);

  const row = (name: string, r: typeof withIndex, n: number) =>
    `| ${name} | ${n} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.perS.toFixed(1)} |`;
  const shape = CLUSTERS ? `around ${CLUSTERS} topics` : 'uniform random';
  console.log(
    `\nquery_similar over ${VECTORS.toLocaleString('en')} vectors of ${DIMS} dimensions (${shape}), limit ${LIMIT}, one store (PostgreSQL)`,
  );
  console.log('\n| path | queries | p50 ms | p95 ms | queries/s (one client) |\n|---|---:|---:|---:|---:|');
  console.log(row(`pgvector HNSW (m 16, ef_construction 64; strict iterative scan, ef_search ${EF_SEARCH})`, withIndex, QUERIES));
  console.log(row('exact over real[] (SVC_EMBEDDINGS_PGVECTOR=false)', withoutIndex, nExact));
  console.log(
    `\nHNSW build after the seed: ${buildS.toFixed(1)} s. Recall@${LIMIT} of the index path against the exact one: ${(recall * 100).toFixed(1)}%. Load average at the end: ${loadavg()[0].toFixed(2)} (2 cores).`,
  );
} finally {
  fake.stop(true);
  await closeSharedDb();
}
