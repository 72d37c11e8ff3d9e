import { afterAll, describe, expect, test } from 'bun:test';
import { closeTransports } from '../email/delivery';
import { runJobs, startRelay } from '../../test/kit/email';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const stops: (() => unknown)[] = [];
afterAll(async () => {
  closeTransports();
  for (const s of stops.reverse()) await s();
});

const ENV = { SVC_EMAIL_FROM: 'news@svc.test', SVC_PUBLIC_URL: 'https://svc.test' };
async function world(opts: { env?: Record<string, string>; plan?: string; rejectRcpt?: Record<string, number> } = {}) {
  const relay = await startRelay({ rejectRcpt: opts.rejectRcpt });
  stops.push(relay.stop);
  const h = await setup({ now: '2026-03-01T10:00:00Z', env: { SMTP_URL: relay.url, ...ENV, ...opts.env }, plan: opts.plan });
  return { h, relay };
}

const TEMPLATE = {
  name: 'Sale',
  slug: 'sale',
  category: 'marketing',
  subject: 'Sale for {{customer.first_name}}',
  html: '<p>Hi {{customer.first_name}}, <a href="https://shop.test/sale">shop now</a>. <a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
  text: 'Hi {{customer.first_name}}: https://shop.test/sale. Unsubscribe: {{unsubscribe_url}}',
};

async function customer(h: Harness, body: Record<string, unknown>) {
  const r = await h.call('POST', '/customers', body);
  expect(r.status).toBe(201);
  return r.body.id as string;
}
/** A segment of customers tagged `tag`, and a marketing template. */
async function audience(h: Harness, tag: string) {
  const s = await h.call('POST', '/segments', {
    name: tag,
    rules: { match: 'all', conditions: [{ field: 'tags', operator: 'contains', value: tag }] },
  });
  expect(s.status).toBe(201);
  const t = await h.call('POST', '/email/templates', { ...TEMPLATE, slug: `sale-${crypto.randomUUID().slice(0, 8)}` });
  expect(t.status).toBe(201);
  return { segment_id: s.body.id as string, template_id: t.body.id as string };
}

/** Runs the queued send jobs of the store once each (as a worker would), answering how many ran. */
async function runSends(h: Harness) {
  const jobs = await takeQueued(h, 'campaigns.send');
  for (const j of jobs) await runJob(h, 'campaigns.send', [j]);
  return jobs;
}

const messagesTo = async (h: Harness) =>
  (await h.db.query<{ to: string }>(`SELECT to_addresses->>0 AS to FROM email_messages WHERE store_id = $1 ORDER BY 1`, [h.store.id])).map(
    (r) => r.to,
  );

describe('campaigns', () => {
  test('a campaign mails each consenting member once, skips suppressed and unconsented ones, and reaches the relay', async () => {
    const { h, relay } = await world();
    await customer(h, { email: 'Ada@Example.com', first_name: 'Ada', tags: ['vip'], accepts_marketing: true });
    await customer(h, { email: 'bo@example.com', first_name: 'Bo', tags: ['vip'], accepts_marketing: false });
    await customer(h, { email: 'cy@example.com', first_name: 'Cy', tags: ['vip'], accepts_marketing: true });
    await customer(h, { email: 'ed@example.com', first_name: 'Ed', tags: ['other'], accepts_marketing: true });
    // Cy unsubscribed from an earlier message.
    await h.db.query(`INSERT INTO email_suppressions (store_id, address, reason, created_at) VALUES ($1, 'cy@example.com', 'unsubscribed', now())`, [
      h.store.id,
    ]);
    const made = await h.call('POST', '/campaigns', { name: 'Spring', ...(await audience(h, 'vip')), send_now: true });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'campaign', status: 'scheduled', send_rate_per_minute: 600, conversion_window_days: 5 });
    expect(made.body.recipients).toEqual({ total: 0, pending: 0, sent: 0, skipped: 0 });

    expect((await runSends(h)).length).toBe(1);
    const c = (await h.call('GET', `/campaigns/${made.body.id}`)).body;
    expect(c).toMatchObject({ status: 'sent', started_at: '2026-03-01T10:00:00.000Z', finished_at: '2026-03-01T10:00:00.000Z' });
    expect(c.recipients).toEqual({ total: 3, pending: 0, sent: 1, skipped: 2 });
    const reasons = await h.db.query<{ reason: string | null }>(`SELECT reason FROM campaign_recipients WHERE campaign_id = $1 ORDER BY reason`, [
      c.id,
    ]);
    expect(reasons.map((r) => r.reason)).toEqual(['not_accepting_marketing', 'suppressed', null]);
    expect(await messagesTo(h)).toEqual(['ada@example.com']);

    expect(await runJobs(h)).toBe(1);
    expect(relay.received.map((m) => m.to)).toEqual([['ada@example.com']]);
    expect(relay.received[0].raw).toContain('Subject: Sale for Ada');
    expect(relay.received[0].raw).toMatch(/List-Unsubscribe: <https:\/\/svc\.test\/e\/u\//);
    // No more runs are queued for a sent campaign.
    expect(await runSends(h)).toEqual([]);
  });

  test('get_metrics counts deliveries, opens, clicks, bounces, unsubscribes, and orders within the window of an open or click', async () => {
    const { h } = await world({ rejectRcpt: { 'dee@example.com': 550 } });
    const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 25 }, stock_quantity: 100 }))).body.id;
    const ada = await customer(h, { email: 'ada@example.com', first_name: 'Ada', tags: ['m'], accepts_marketing: true });
    const bo = await customer(h, { email: 'bo@example.com', first_name: 'Bo', tags: ['m'], accepts_marketing: true });
    await customer(h, { email: 'cy@example.com', first_name: 'Cy', tags: ['m'], accepts_marketing: true });
    await customer(h, { email: 'dee@example.com', first_name: 'Dee', tags: ['m'], accepts_marketing: true });
    const order = async (customer_id: string, quantity: number) => {
      const o = await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity }], customer_id });
      expect(o.status).toBe(201);
      expect((await h.call('PATCH', `/orders/${o.body.id}`, { status: 'paid' })).status).toBe(200);
    };
    await order(ada, 9); // before the campaign: not a conversion
    const made = (await h.call('POST', '/campaigns', { name: 'M', ...(await audience(h, 'm')), send_now: true, conversion_window_days: 3 })).body;
    await runSends(h);
    await runJobs(h);
    const msg = async (to: string) =>
      (await h.db.query(`SELECT id, tracking_token FROM email_messages WHERE store_id = $1 AND to_addresses->>0 = $2`, [h.store.id, to]))[0];
    h.clock.advance(3_600_000);
    const a = await msg('ada@example.com');
    expect((await h.raw('GET', `/e/c/${a.id}/${a.tracking_token}/0`)).headers.get('location')).toBe('https://shop.test/sale');
    const b = await msg('bo@example.com');
    expect((await h.raw('POST', `/e/u/${b.id}/${b.tracking_token}`, 'List-Unsubscribe=One-Click')).status).toBe(200);
    h.clock.advance(86_400_000);
    await order(ada, 2); // a day after her click: 50.00
    await order(bo, 1); // Bo never opened nor clicked
    h.clock.advance(3 * 86_400_000);
    await order(ada, 1); // four days after: outside the window of 3

    const m = await h.call('GET', `/campaigns/${made.id}/metrics`);
    expect(m.status).toBe(200);
    expect(m.body).toEqual({
      object: 'campaign_metrics',
      campaign_id: made.id,
      status: 'sent',
      recipients: 4,
      sent: 4,
      skipped: 0,
      delivered: 3,
      opened: 1,
      clicked: 1,
      bounced: 1,
      unsubscribed: 1,
      conversions: 1,
      conversion_revenue: 50,
      currency: 'USD',
      rates: { delivery: 75, open: 33.3, click: 33.3, conversion: 33.3 },
    });
  });

  test('send_rate_per_minute throttles: each run sends one minute of messages and queues the next a minute later', async () => {
    const { h } = await world();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await customer(h, { email: `${n}@example.com`, tags: ['t'], accepts_marketing: true });
    const made = (await h.call('POST', '/campaigns', { name: 'T', ...(await audience(h, 't')), send_now: true, send_rate_per_minute: 2 })).body;
    const counts: number[] = [];
    for (let run = 0; run < 3; run++) {
      const [job] = await runSends(h);
      expect(job).toBeDefined();
      counts.push((await messagesTo(h)).length);
      const next = await h.db.query<{ start_after: Date }>(
        `SELECT start_after FROM pgboss.job WHERE name = 'campaigns.send' AND data->>'store_id' = $1`,
        [h.store.id],
      );
      if (run < 2) expect(new Date(next[0].start_after).toISOString()).toBe(new Date(h.clock.now().getTime() + 60_000).toISOString());
      else expect(next).toEqual([]);
      h.clock.advance(60_000);
    }
    expect(counts).toEqual([2, 4, 5]);
    expect((await h.call('GET', `/campaigns/${made.id}`)).body.status).toBe('sent');
  });

  test('a scheduled campaign starts at send_at; members are evaluated then; pause, resume and cancel follow the statuses', async () => {
    const { h } = await world();
    await customer(h, { email: 'a@example.com', tags: ['s'], accepts_marketing: true });
    const made = (await h.call('POST', '/campaigns', { name: 'S', ...(await audience(h, 's')), send_at: '2026-03-02T09:00:00+01:00' })).body;
    expect(made).toMatchObject({ status: 'scheduled', send_at: '2026-03-02T08:00:00.000Z' });
    const [job] = await takeQueued(h, 'campaigns.send');
    // Too early (a worker would not take it; nothing happens if one did).
    await runJob(h, 'campaigns.send', [job]);
    expect((await h.call('GET', `/campaigns/${made.id}`)).body.status).toBe('scheduled');
    await customer(h, { email: 'b@example.com', tags: ['s'], accepts_marketing: true });

    expect((await h.call('POST', `/campaigns/${made.id}/pause`)).body.status).toBe('paused');
    expect((await h.call('POST', `/campaigns/${made.id}/pause`)).body.status).toBe('paused');
    const resumed = await h.call('POST', `/campaigns/${made.id}/resume`);
    expect(resumed.body.status).toBe('scheduled'); // not yet due
    expect((await h.call('POST', `/campaigns/${made.id}/resume`)).body.error).toMatchObject({ code: 'campaign_not_paused', param: 'id' });

    h.clock.set('2026-03-02T08:00:00Z');
    await runJob(h, 'campaigns.send', [job]);
    await runSends(h); // resume's own run: finds it sent
    expect(await messagesTo(h)).toEqual(['a@example.com', 'b@example.com']);
    const sent = (await h.call('GET', `/campaigns/${made.id}`)).body;
    expect(sent).toMatchObject({ status: 'sent', recipients: { total: 2, sent: 2 } });
    for (const act of ['pause', 'resume', 'cancel']) {
      const r = await h.call('POST', `/campaigns/${made.id}/${act}`);
      expect([r.status, r.body.error.code]).toEqual([409, 'campaign_finished']);
    }

    const other = (await h.call('POST', '/campaigns', { name: 'C', ...(await audience(h, 's')), send_now: true })).body;
    expect((await h.call('POST', `/campaigns/${other.id}/cancel`)).body.status).toBe('cancelled');
    await runSends(h);
    expect((await messagesTo(h)).length).toBe(2);
    const list = await h.call('GET', '/campaigns?status=cancelled');
    expect(list.body.data.map((c: any) => c.id)).toEqual([other.id]);
  });

  test('invalid campaigns are refused naming the field', async () => {
    const { h } = await world({ plan: 'free' });
    const theirs = await setup();
    const { segment_id, template_id } = await audience(h, 'x');
    const plain = (await h.call('POST', '/email/templates', { ...TEMPLATE, category: 'transactional', slug: 'plain' })).body.id;
    const foreignSegment = (await audience(theirs, 'x')).segment_id;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ segment_id, template_id }, 400, 'send_at'],
      [{ segment_id, template_id, send_now: true, send_at: '2026-04-01T00:00:00Z' }, 400, 'send_at'],
      [{ segment_id, template_id, send_at: '2026-02-01T00:00:00Z' }, 400, 'send_at'],
      [{ segment_id, template_id, send_at: 'soon' }, 400, 'send_at'],
      [{ segment_id, template_id: plain, send_now: true }, 400, 'template_id'],
      [{ segment_id: foreignSegment, template_id, send_now: true }, 404, 'segment_id'],
      [{ segment_id, template_id: crypto.randomUUID(), send_now: true }, 404, 'template_id'],
      [{ segment_id, template_id, send_now: true, from: 'nobody' }, 400, 'from'],
      // The free plan sends 100 emails an hour.
      [{ segment_id, template_id, send_now: true, send_rate_per_minute: 101 }, 400, 'send_rate_per_minute'],
    ];
    for (const [body, status, param] of cases) {
      const r = await h.call('POST', '/campaigns', { name: 'X', ...body });
      expect([r.status, r.body.error?.param]).toEqual([status, param]);
    }
    const capped = await h.call('POST', '/campaigns', { name: 'X', segment_id, template_id, send_now: true });
    expect(capped.body.send_rate_per_minute).toBe(100);
  });

  test('without SVC_PUBLIC_URL sending pauses and says which setting is missing', async () => {
    const { h } = await world({ env: { SVC_PUBLIC_URL: '' } });
    await customer(h, { email: 'a@example.com', tags: ['p'], accepts_marketing: true });
    const made = (await h.call('POST', '/campaigns', { name: 'P', ...(await audience(h, 'p')), send_now: true })).body;
    await runSends(h);
    const c = (await h.call('GET', `/campaigns/${made.id}`)).body;
    expect(c).toMatchObject({ status: 'paused', recipients: { pending: 1, sent: 0 } });
    expect(c.last_error.code).toBe('provider_not_configured');
    expect(c.last_error.message).toContain('SVC_PUBLIC_URL');
    expect((await h.call('POST', `/campaigns/${made.id}/resume`)).body.last_error).toBeNull();
  });

  test('marketing scopes: read keys list and measure, write keys create and pause; segments stay behind their own scopes', async () => {
    const { h } = await world();
    const ids = await audience(h, 'k');
    const reader = { 'x-api-key': await h.newKey(['marketing:read']) };
    const writer = { 'x-api-key': await h.newKey(['marketing:write']) };
    const made = await h.call('POST', '/campaigns', { name: 'K', ...ids, send_now: true }, writer);
    expect(made.status).toBe(201);
    expect((await h.call('POST', `/campaigns/${made.body.id}/pause`, {}, writer)).body.status).toBe('paused');
    expect((await h.call('GET', `/campaigns/${made.body.id}/metrics`, undefined, reader)).status).toBe(200);
    expect((await h.call('GET', '/campaigns', undefined, reader)).body.data.length).toBe(1);
    expect((await h.call('POST', '/campaigns', { name: 'K', ...ids, send_now: true }, reader)).status).toBe(403);
    expect((await h.call('POST', `/campaigns/${made.body.id}/resume`, {}, reader)).status).toBe(403);
    expect((await h.call('GET', `/segments/${ids.segment_id}/members`, undefined, writer)).status).toBe(403);
  });

  test('over MCP: create, pause, resume and get_metrics through the campaigns tool', async () => {
    const { h } = await world();
    await customer(h, { email: 'a@example.com', tags: ['mcp'], accepts_marketing: true });
    const ids = await audience(h, 'mcp');
    const { client } = await mcpClient(h);
    const call = async (args: Record<string, unknown>) => {
      const out: any = await client.callTool({ name: 'campaigns', arguments: args });
      expect(out.isError).toBeFalsy();
      return JSON.parse(out.content[0].text);
    };
    const c = await call({ action: 'create_campaign', name: 'Over MCP', ...ids, send_now: true });
    expect(c).toMatchObject({ object: 'campaign', status: 'scheduled' });
    expect((await call({ action: 'pause', id: c.id })).status).toBe('paused');
    await runSends(h);
    // Paused before it started: scheduled again, and its run takes the audience.
    expect((await call({ action: 'resume', id: c.id })).status).toBe('scheduled');
    await runSends(h);
    expect(await call({ action: 'get_metrics', id: c.id })).toMatchObject({ sent: 1, recipients: 1 });
    expect((await call({ action: 'list_campaigns' })).data.map((x: any) => x.id)).toEqual([c.id]);
    await client.close();
  });
});
