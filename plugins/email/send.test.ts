import { afterAll, expect, test } from 'bun:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { setup } from '../../test/kit/setup';
import { createLogger } from '../../core/log';
import { runJob } from '../../test/kit/jobs';
import { closeTransports } from './delivery';
import { lookupTxt, resolverOf, startDnsListener } from './dns';
import { freePort, runJobs, startRelay, startResolver } from '../../test/kit/email';

const ZONE = 'dns.svc.test';
const stops: (() => unknown)[] = [];
afterAll(async () => {
  closeTransports();
  for (const s of stops.reverse()) await s();
});

async function world(relayOpts: Parameters<typeof startRelay>[0] = {}) {
  const relay = await startRelay(relayOpts);
  stops.push(relay.stop);
  const env = { SMTP_URL: relay.url, SVC_EMAIL_FROM: 'noreply@svc.test', SVC_EMAIL_DNS_ZONE: ZONE, SVC_PUBLIC_URL: 'https://svc.test' };
  const h = await setup({ env });
  return { h, relay, env };
}

/** A domain of the store, marked verified (verification has its own test). */
async function verifiedDomain(h: Awaited<ReturnType<typeof setup>>, domain: string) {
  const d = await h.call('POST', '/email/domains', { domain });
  expect(d.status).toBe(201);
  await h.db.query(`UPDATE email_domains SET status = 'verified' WHERE id = $1`, [d.body.id]);
  return d.body;
}

test('a template send is queued, delivered through the relay DKIM-signed with the domain key, and verifies against DNS', async () => {
  const { h, relay } = await world();
  const domain = await verifiedDomain(h, 'mail.shop.test');
  const tpl = await h.call('POST', '/email/templates', {
    name: 'Welcome',
    slug: 'welcome',
    subject: 'Welcome {{customer.name}}',
    html: '<p>Hi {{customer.name}}, see <a href="https://shop.test/new?a=1&amp;b=2">new</a></p>',
    text: 'Hi {{customer.name}}',
  });
  const sent = await h.call('POST', '/email/send', {
    to: 'ada@example.com',
    from: 'hello@mail.shop.test',
    template_id: tpl.body.id,
    variables: { customer: { name: 'Ada' } },
    tags: ['welcome'],
  });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({
    object: 'email_message',
    status: 'queued',
    template_id: tpl.body.id,
    template_version: 1,
    to: ['ada@example.com'],
  });
  expect(sent.body.warning).toBeUndefined();

  expect(await runJobs(h)).toBe(1);
  expect(relay.received).toHaveLength(1);
  const raw = relay.received[0].raw;
  expect(raw).toContain('Subject: Welcome Ada');
  expect(raw).toContain(`Message-ID: <${sent.body.id}@mail.shop.test>`);
  expect(raw).toContain('DKIM-Signature:');

  // The DKIM key is published by svc's own DNS listener, reached through the domain's CNAME.
  const listener = await startDnsListener({ db: h.db, zone: ZONE, listen: '127.0.0.1:0', spf: '', log: () => {} });
  stops.push(listener.stop);
  const dkimRecord = domain.dns_records.find((r: any) => r.purpose === 'dkim');
  const resolver = await startResolver({ [dkimRecord.host]: [{ type: 'CNAME', value: dkimRecord.value }] }, ZONE, listener.port);
  stops.push(resolver.stop);
  const result = await dkimVerify(Buffer.from(raw), {
    resolver: async (name: string, type: string) => {
      if (type !== 'TXT') throw Object.assign(new Error('no data'), { code: 'ENODATA' });
      const { txt } = await lookupTxt(resolverOf(resolver.address), name);
      if (!txt.length) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return txt.map((t) => [t]);
    },
  });
  expect(result.results[0].status.result).toBe('pass');
  expect(result.results[0].signingDomain).toBe('mail.shop.test');

  const got = await h.call('GET', `/email/messages/${sent.body.id}`);
  expect(got.body.status).toBe('delivered');
  expect(got.body.smtp_response).toMatch(/^250/);
  const events = await h.call('GET', `/email/messages/${sent.body.id}/events`);
  expect(events.body.data).toHaveLength(1);
  expect(events.body.data[0]).toMatchObject({ event: 'delivered', details: { smtp_response: expect.stringMatching(/^250/) } });
  const byTag = await h.call('GET', '/email/messages?tag=welcome&status=delivered');
  expect(byTag.body.data.map((m: any) => m.id)).toEqual([sent.body.id]);
  expect((await h.call('GET', '/email/messages?tag=other')).body.data).toEqual([]);
});

test('a 5xx from the relay bounces the message and suppresses the address; the next send is suppressed', async () => {
  const { h, relay } = await world({ rejectRcpt: { 'gone@example.com': 550 } });
  const first = await h.call('POST', '/email/send', { to: 'gone@example.com', subject: 'Hi', text: 'Hi' });
  await runJobs(h);
  expect((await h.call('GET', `/email/messages/${first.body.id}`)).body.status).toBe('bounced');
  const events = (await h.call('GET', `/email/messages/${first.body.id}/events`)).body.data;
  expect(events.map((e: any) => e.event)).toEqual(['bounced']);
  const second = await h.call('POST', '/email/send', { to: 'GONE@example.com', subject: 'Hi again', text: 'Hi' });
  expect(second.body.status).toBe('suppressed');
  expect(await runJobs(h)).toBe(0); // a suppressed message gets no delivery job
  expect(relay.received).toHaveLength(0);
  expect((await h.call('GET', `/email/messages/${second.body.id}`)).body.status).toBe('suppressed');
});

test('the relay down and then up: the message is retried with backoff and delivered once', async () => {
  const port = freePort();
  const env = { SMTP_URL: `smtp://127.0.0.1:${port}`, SVC_EMAIL_FROM: 'noreply@svc.test' };
  const h = await setup({ env });
  const sent = await h.call('POST', '/email/send', { to: 'ada@example.com', subject: 'Hi', text: 'Hi' });
  await runJobs(h);
  const waiting = await h.call('GET', `/email/messages/${sent.body.id}`);
  expect(waiting.body.status).toBe('queued');
  const [job] = await h.db.query<{ delay: number }>(
    `SELECT extract(epoch FROM start_after - now())::float AS delay FROM pgboss.job WHERE name = 'email.deliver' AND data->'input'->>'message_id' = $1`,
    [sent.body.id],
  );
  expect(job.delay).toBeGreaterThan(20); // backed off, not hammering the relay

  const relay = await startRelay({ port });
  stops.push(relay.stop);
  closeTransports(); // the pool's failed connection is not reused
  expect(await runJobs(h, { early: true })).toBe(1);
  expect(await runJobs(h, { early: true })).toBe(0);
  expect(relay.received).toHaveLength(1);
  expect((await h.call('GET', `/email/messages/${sent.body.id}`)).body.status).toBe('delivered');
});

test('marketing mail carries List-Unsubscribe and List-Unsubscribe-Post (RFC 8058)', async () => {
  const { h, relay } = await world();
  const tpl = await h.call('POST', '/email/templates', {
    name: 'News',
    slug: 'news',
    category: 'marketing',
    subject: 'News',
    html: '<p>News</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
    text: 'News. Unsubscribe: {{unsubscribe_url}}',
  });
  const sent = await h.call('POST', '/email/send', { to: 'ada@example.com', template_id: tpl.body.id });
  expect(sent.body.category).toBe('marketing');
  await runJobs(h);
  const raw = relay.received[0].raw;
  expect(raw).toMatch(/List-Unsubscribe:\s+<https:\/\/svc\.test\/e\/u\/[0-9a-f-]+\/[0-9a-f]+>/);
  expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
});

test('bad input: invalid addresses, a from off the verified domains, a missing body', async () => {
  const { h } = await world();
  const bad = await h.call('POST', '/email/send', { to: 'not-an-address', subject: 'x', text: 'x' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('to');
  const badList = await h.call('POST', '/email/send', { to: ['a@example.com', 'b@nohost'], subject: 'x', text: 'x' });
  expect(badList.body.error).toMatchObject({ param: 'to', message: 'Invalid to: must be an email address or an array.' }); // the schema's check (issue 44)
  const foreign = await h.call('POST', '/email/send', { to: 'a@example.com', from: 'me@elsewhere.test', subject: 'x', text: 'x' });
  expect(foreign.status).toBe(400);
  expect(foreign.body.error.param).toBe('from');
  const empty = await h.call('POST', '/email/send', { to: 'a@example.com', subject: 'x' });
  expect(empty.body.error.param).toBe('text');
  const tooBig = await h.call('POST', '/email/send', {
    to: 'a@example.com',
    subject: 'x',
    text: 'x',
    attachments: Array.from({ length: 3 }, (_, i) => ({
      filename: `f${i}.bin`,
      content_type: 'application/octet-stream',
      content: Buffer.alloc(200 * 1024).toString('base64'),
    })),
  });
  expect(tooBig.status).toBe(400);
  expect(tooBig.body.error.param).toBe('attachments');
});

test('with no SMTP_URL the message stays queued and the response names the setting', async () => {
  const h = await setup({ env: { SVC_EMAIL_FROM: 'noreply@svc.test' } });
  const sent = await h.call('POST', '/email/send', { to: 'a@example.com', subject: 'x', text: 'x' });
  expect(sent.status).toBe(201);
  expect(sent.body.status).toBe('queued');
  expect(sent.body.warning).toContain('SMTP_URL');
  expect(await runJobs(h)).toBe(0);
});

test('an Idempotency-Key replay answers the same message and queues no second delivery', async () => {
  const { h, relay } = await world();
  const headers = { 'Idempotency-Key': `send-${crypto.randomUUID()}` };
  const a = await h.call('POST', '/email/send', { to: 'a@example.com', subject: 'x', text: 'x' }, headers);
  const b = await h.call('POST', '/email/send', { to: 'a@example.com', subject: 'x', text: 'x' }, headers);
  expect(b.body.id).toBe(a.body.id);
  expect(await runJobs(h)).toBe(1);
  expect(relay.received).toHaveLength(1);
});

test('the hourly limit of the plan holds under parallel sends: 429 with Retry-After until the next hour, then room again', async () => {
  // A relay that is never reached (no job runs here): the sends are queued without a warning each.
  const h = await setup({ env: { SVC_EMAIL_FROM: 'noreply@svc.test', SMTP_URL: 'smtp://127.0.0.1:9' }, plan: 'free' });
  h.clock.advance(30 * 60_000); // 00:30 UTC: the hour has 30 minutes left
  const send = (n: number) => h.call('POST', '/email/send', { to: `p${n}@example.com`, subject: 'x', text: 'x' });
  const answers = await Promise.all(Array.from({ length: 105 }, (_, n) => send(n)));
  expect(answers.filter((r) => r.status === 201)).toHaveLength(100);
  const refused = answers.filter((r) => r.status === 429);
  expect(refused).toHaveLength(5);
  expect(refused.map((r) => r.headers.get('retry-after'))).toEqual(Array(5).fill('1800'));
  const [{ n }] = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM email_messages WHERE store_id = $1', [h.store.id]);
  expect(n).toBe(100);
  // Each accepted message has its one delivery job; a refused send left none.
  const [{ jobs }] = await h.db.query<{ jobs: number }>(
    `SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = 'email.deliver' AND (data->'input'->>'message_id')::uuid IN (SELECT id FROM email_messages WHERE store_id = $1)`,
    [h.store.id],
  );
  expect(jobs).toBe(100);
  h.clock.advance(30 * 60_000);
  expect((await send(200)).status).toBe(201);
});

test('parallel sends with a sender off the verified domains among them: that one is refused, the others are sent, only theirs count', async () => {
  const { h } = await world();
  await verifiedDomain(h, 'mail.lane.test');
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, n) =>
      h.call('POST', '/email/send', {
        to: `l${n}@example.com`,
        from: n % 4 === 1 ? 'me@elsewhere.test' : 'hi@mail.lane.test',
        subject: 'x',
        text: 'x',
      }),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 12 }, (_, n) => (n % 4 === 1 ? 400 : 201)));
  expect(answers[1].body.error.param).toBe('from');
  expect(new Set(answers.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(9);
  const [{ messages }] = await h.db.query<{ messages: number }>('SELECT messages FROM email_hourly_sends WHERE store_id = $1', [h.store.id]);
  expect(messages).toBe(9);
  expect((await h.call('GET', '/email/stats?date_from=2026-04-01&date_to=2026-04-01')).body.sent).toBe(9);
});

test('at start-up, a missing SMTP_URL is named in a warning', async () => {
  const h = await setup();
  const email = h.registry.plugins.find((p) => p.name === 'email')!;
  const lines: string[] = [];
  const deps = {
    db: h.db,
    clock: h.clock,
    registry: h.registry,
    log: createLogger({ sink: () => {} }),
    role: 'all' as const,
    print: (l: string) => void lines.push(l),
  };
  const started = await email.start!({ ...deps, config: h.registry.configOf('email') });
  await started?.stop();
  expect(lines.join('\n')).toContain('SMTP_URL is not set');
  lines.length = 0;
  const quiet = await email.start!({ ...deps, config: { smtp_url: 'smtp://127.0.0.1:25', from: 'noreply@svc.test' } });
  await quiet?.stop();
  expect(lines).toEqual([]);
});

test('a batch of deliveries: each message goes out once even when its job comes twice, a refusal does not hold back the others, stats count each once', async () => {
  const { h, relay } = await world({ rejectRcpt: { 'gone@example.com': 550, 'busy@example.com': 451 } });
  await verifiedDomain(h, 'mail.batch.test');
  const to = ['a@example.com', 'gone@example.com', 'b@example.com', 'busy@example.com', 'c@example.com'];
  const ids: string[] = [];
  for (const address of to) {
    const r = await h.call('POST', '/email/send', { to: address, from: 'hi@mail.batch.test', subject: `For ${address}`, text: 'Hi' });
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  const jobs = await h.db.query<{ data: unknown }>(
    `DELETE FROM pgboss.job WHERE name = 'email.deliver' AND (data->'input'->>'message_id')::uuid IN (SELECT id FROM email_messages WHERE store_id = $1) RETURNING data`,
    [h.store.id],
  );
  expect(jobs).toHaveLength(5);
  // Each job handed out twice, once in each of two batches running at the same time.
  const payloads = jobs.map((j) => ({ data: j.data }));
  await Promise.all([runJob(h, 'email.deliver', payloads), runJob(h, 'email.deliver', [...payloads].reverse())]);

  expect(relay.received.map((m) => m.to[0]).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  const status = async (id: string) => (await h.call('GET', `/email/messages/${id}`)).body.status;
  expect(await Promise.all(ids.map(status))).toEqual(['delivered', 'bounced', 'delivered', 'queued', 'delivered']);
  for (const id of [ids[0], ids[2], ids[4]]) {
    const events = (await h.call('GET', `/email/messages/${id}/events`)).body.data;
    expect(events.map((e: any) => e.event)).toEqual(['delivered']);
  }
  const stats = (await h.call('GET', '/email/stats?date_from=2026-04-01&date_to=2026-04-01')).body;
  expect(stats).toMatchObject({ sent: 5, delivered: 3, bounced: 1 });
});
