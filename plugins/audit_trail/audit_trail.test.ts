import { describe, expect, test } from 'bun:test';
import { runCron, runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

/** Runs the audit reactions queued for this store (twice: a crash before the acknowledgement). */
async function drain(h: Harness) {
  const jobs = await takeQueued(h, 'audit_trail.on');
  await runJob(h, 'audit_trail.on', jobs);
  await runJob(h, 'audit_trail.on', jobs);
  return jobs.length;
}

describe('audit_trail', () => {
  test('every domain event is kept with its actor, resource and request, whether or not a webhook subscribes; once', async () => {
    const h = await setup({ now: '2026-05-01T10:00:00Z' });
    const made = await h.call('POST', '/products', product({ name: 'Mug' }));
    expect(made.status).toBe(201);
    h.clock.set('2026-05-02T10:00:00Z');
    expect((await h.call('PATCH', '/settings', { timezone: 'Europe/Berlin' })).status).toBe(200);
    expect(await drain(h)).toBe(2);
    const ro = { 'x-api-key': await h.newKey(['platform:read']) };
    const list = await h.call('GET', '/audit-events', undefined, ro);
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.type).sort()).toEqual(['product.created', 'store.settings_updated']);
    const p = list.body.data.find((e: any) => e.type === 'product.created');
    expect(p).toMatchObject({
      object: 'audit_event',
      type: 'product.created',
      actor: { type: 'api_key', id: expect.any(String), name: null },
      resource: { type: 'product', id: made.body.id },
      data: { id: made.body.id, name: 'Mug' },
      created_at: '2026-05-01T10:00:00.000Z',
    });
    expect(p.request_id).toBe(made.headers.get('x-request-id') ?? p.request_id);
    expect(typeof p.request_id).toBe('string');
    expect((await h.call('GET', `/audit-events/${p.id}`, undefined, ro)).body).toEqual(p);
    // No write action; a key without platform scopes reads nothing; another store sees none of it.
    expect((await h.call('GET', '/audit-events', undefined, { 'x-api-key': await h.newKey(['catalog']) })).status).toBe(403);
    const other = await setup();
    expect((await other.call('GET', `/audit-events/${p.id}`)).status).toBe(404);
    expect((await other.call('GET', '/audit-events')).body.data).toEqual([]);
  });

  test('administrative acts: api keys made, rolled and revoked, settings; never the secret', async () => {
    const h = await setup();
    const made = await h.call('POST', '/api-keys', { scopes: ['catalog:read'] });
    expect(made.status).toBe(201);
    const secret = made.body.key as string;
    expect(secret).toMatch(/^svc_/);
    const rolled = await h.call('POST', `/api-keys/${made.body.id}/roll`, { expires_in: 0 });
    expect(rolled.status).toBe(200);
    expect((await h.call('DELETE', `/api-keys/${rolled.body.id}`)).status).toBe(200);
    await drain(h);
    const all = (await h.call('GET', '/audit-events?type=api_key.created,api_key.rolled,api_key.revoked')).body.data;
    expect(all.map((e: any) => e.type).sort()).toEqual(['api_key.created', 'api_key.revoked', 'api_key.rolled']);
    expect(all.find((e: any) => e.type === 'api_key.created')).toMatchObject({
      resource: { type: 'api_key', id: made.body.id },
      actor: { type: 'api_key' },
    });
    const text = JSON.stringify(all) + String((await h.call('GET', '/audit-events/export')).body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(rolled.body.key);
  });

  test('filters: type (several), resource, actor, from/to in the store time zone; cursor pages', async () => {
    const h = await setup({ now: '2026-05-01T10:00:00Z' });
    const a = (await h.call('POST', '/products', product())).body.id;
    h.clock.set('2026-05-03T23:30:00Z');
    await h.call('PATCH', `/products/${a}`, { name: 'Renamed' });
    await h.call('PATCH', '/settings', { contact_email: 'shop@example.com' });
    await drain(h);
    // Rows are listed newest written first; reactions of one instant may be written in any order.
    const types = async (q: string) => (await h.call('GET', `/audit-events?${q}`)).body.data.map((e: any) => e.type).sort();
    expect(await types('type=product.created,product.updated')).toEqual(['product.created', 'product.updated']);
    expect(await types(`resource_id=${a}&resource_type=product`)).toEqual(['product.created', 'product.updated']);
    expect(await types('from=2026-05-02')).toEqual(['product.updated', 'store.settings_updated']);
    expect(await types('to=2026-05-03')).toEqual(['product.created', 'product.updated', 'store.settings_updated']);
    // In Berlin, 23:30 UTC on 05-03 is already 05-04.
    await h.db.query(`UPDATE store_settings SET timezone = 'Europe/Berlin' WHERE store_id = $1`, [h.store.id]);
    expect(await types('to=2026-05-03')).toEqual(['product.created']);
    expect(await types('from=2026-05-04&to=2026-05-04')).toEqual(['product.updated', 'store.settings_updated']);
    expect(await types('to=2026-05-03T00:00:00Z')).toEqual(['product.created']);
    const actor = (await h.call('GET', '/audit-events')).body.data[0].actor.id;
    expect((await types(`actor_id=${actor}`)).length).toBe(3);
    expect((await h.call('GET', '/audit-events?from=2026-13-01')).body.error.param).toBe('from');
    const first = await h.call('GET', '/audit-events?limit=2');
    expect(first.body.has_more).toBe(true);
    expect((await h.call('GET', `/audit-events?limit=2&starting_after=${first.body.data[1].id}`)).body.data.length).toBe(1);
  });

  test('export streams csv and jsonl, oldest first; its tool form is a signed link', async () => {
    const h = await setup({ now: '2026-05-01T10:00:00Z' });
    for (let i = 0; i < 3; i++) await h.call('POST', '/products', product({ name: i === 0 ? '=HYPERLINK("x")' : `P${i}` }));
    await drain(h);
    const csv = await h.call('GET', '/audit-events/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = String(csv.body).trim().split('\n');
    expect(lines[0]).toBe('id,type,actor_type,actor_id,actor_name,resource_type,resource_id,request_id,created_at,data');
    expect(lines.length).toBe(4);
    expect(lines.slice(1).every((l) => l.includes('"product.created"'))).toBe(true);
    // The name that looks like a formula stays inside the data cell, which starts with {.
    expect(lines.some((l) => l.includes('"{""id""') && l.includes('HYPERLINK'))).toBe(true);
    const jsonl = await h.call('GET', '/audit-events/export?format=jsonl&type=product.created');
    expect(jsonl.headers.get('content-type')).toContain('application/x-ndjson');
    const rows = String(jsonl.body)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.data.name).sort()).toEqual(['=HYPERLINK("x")', 'P1', 'P2']);
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'audit_trail', arguments: { action: 'export', format: 'jsonl' } });
    await client.close();
    const link = JSON.parse(out.content[0].text);
    expect(link).toMatchObject({ object: 'signed_link', content_type: expect.stringContaining('ndjson') });
    expect(new Date(link.expires_at).getTime() - h.clock.now().getTime()).toBe(15 * 60_000);
    const res = await h.app.handle(new Request(link.url.replace(/^https?:\/\/[^/]+/, 'http://svc.test')));
    expect(res.status).toBe(200);
    expect((await res.text()).trim().split('\n').length).toBe(3);
  });

  test('more than one page streams whole', async () => {
    const h = await setup();
    const rows = Array.from({ length: 1203 }, (_, i) => i);
    await h.db.query(
      `INSERT INTO audit_events (id, store_id, event_id, type, actor_type, data, created_at)
       SELECT gen_random_uuid(), $1, 'evt_' || n, 'product.created', 'system', '{}'::jsonb, $2 FROM unnest($3::int[]) AS n`,
      [h.store.id, h.clock.now(), rows],
    );
    const out = await h.call('GET', '/audit-events/export?format=jsonl');
    expect(String(out.body).trim().split('\n').length).toBe(1203);
  });

  test('kept SVC_AUDIT_TRAIL_RETENTION_DAYS days, pruned by the daily job; 0 keeps all', async () => {
    const h = await setup({ now: '2026-01-01T00:00:00Z', env: { SVC_AUDIT_TRAIL_RETENTION_DAYS: '30' } });
    await h.call('POST', '/products', product());
    h.clock.set('2026-01-25T00:00:00Z');
    await h.call('POST', '/products', product());
    await drain(h);
    h.clock.set('2026-02-05T00:00:00Z');
    await runCron(h, 'audit_trail.prune');
    expect((await h.call('GET', '/audit-events')).body.data.map((e: any) => e.created_at)).toEqual(['2026-01-25T00:00:00.000Z']);
    const keep = await setup({ now: '2020-01-01T00:00:00Z', env: { SVC_AUDIT_TRAIL_RETENTION_DAYS: '0' } });
    await keep.call('POST', '/products', product());
    await drain(keep);
    keep.clock.set('2026-01-01T00:00:00Z');
    await runCron(keep, 'audit_trail.prune');
    expect((await keep.call('GET', '/audit-events')).body.data.length).toBe(1);
  });
});
