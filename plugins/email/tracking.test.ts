import { afterAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { closeTransports } from './delivery';
import { freePort, runJobs, startRelay } from '../../test/kit/email';
import { drainWriteBehinds } from '../../core/write-behind';
import { openBatching, opens as openBuffer } from './opens';

const stops: (() => unknown)[] = [];
afterAll(async () => {
  closeTransports();
  for (const s of stops.reverse()) await s();
});

/** The app behind a real HTTP listener on 127.0.0.1, whose address is SVC_PUBLIC_URL. */
async function world() {
  const relay = await startRelay();
  stops.push(relay.stop);
  const port = freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const h = await setup({ env: { SMTP_URL: relay.url, SVC_EMAIL_FROM: 'noreply@svc.test', SVC_PUBLIC_URL: publicUrl } });
  h.app.listen({ port, hostname: '127.0.0.1' });
  stops.push(() => h.app.stop(true));
  return { h, relay, publicUrl };
}

/** The message's events once there are at least `n` (opens arrive a few ms after their answer), waiting at most 10 s. */
async function eventsOnce(h: Awaited<ReturnType<typeof world>>['h'], id: string, n: number) {
  for (let waited = 0; ; waited += 20) {
    const events = (await h.call('GET', `/email/messages/${id}/events`)).body.data;
    if (events.length >= n || waited > 10_000) return events;
    await Bun.sleep(20);
  }
}

test('opens, clicks and a one-click unsubscribe over HTTP are recorded, suppress the address, and add up in stats', async () => {
  const { h, publicUrl } = await world();
  const tpl = await h.call('POST', '/email/templates', {
    name: 'Sale',
    slug: 'sale',
    category: 'marketing',
    subject: 'Sale',
    html: '<p><a href="https://shop.example/sale?x=1&amp;y=2">Shop</a> <a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
    text: 'Shop: https://shop.example/sale Unsubscribe: {{unsubscribe_url}}',
  });
  const sent = await h.call('POST', '/email/send', { to: 'ada@example.com', template_id: tpl.body.id });
  await runJobs(h);
  const [row] = await h.db.query<{ html: string }>('SELECT html FROM email_messages WHERE id = $1', [sent.body.id]);
  const urls = [...row.html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
  const [click, unsub, pixel] = urls;
  expect(click).toStartWith(`${publicUrl}/e/c/${sent.body.id}/`);
  expect(unsub).toStartWith(`${publicUrl}/e/u/${sent.body.id}/`);
  expect(pixel).toEndWith('.gif');

  // Apple's privacy prefetch right at delivery is a machine open; a person's open comes later.
  const prefetch = await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0' } });
  expect(prefetch.headers.get('content-type')).toBe('image/gif');
  h.clock.advance(60_000);
  await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko)' } });
  // Opens are written a few ms after their answer (opens.ts): both show up without anything else happening.
  expect((await eventsOnce(h, sent.body.id, 3)).map((e: any) => e.event)).toEqual(['delivered', 'opened', 'opened']);

  const clicked = await fetch(click, { redirect: 'manual' });
  expect(clicked.status).toBe(302);
  expect(clicked.headers.get('location')).toBe('https://shop.example/sale?x=1&y=2');
  // Only URLs of the message: another index, or a forged token, goes nowhere.
  expect((await fetch(click.replace(/\/0$/, '/1'), { redirect: 'manual' })).status).toBe(404);
  expect((await fetch(click.replace(/\/[0-9a-f]{32}\//, `/${'0'.repeat(32)}/`), { redirect: 'manual' })).status).toBe(404);

  const confirm = await fetch(unsub);
  expect(await confirm.text()).toContain('<form method="post">');
  const one = await fetch(unsub, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  expect(one.status).toBe(200);
  await fetch(unsub, { method: 'POST', body: 'List-Unsubscribe=One-Click' }); // a repeat records nothing new

  const events = (await h.call('GET', `/email/messages/${sent.body.id}/events`)).body.data;
  expect(events.map((e: any) => e.event)).toEqual(['delivered', 'opened', 'opened', 'clicked', 'unsubscribed']);
  expect(events[1].details).toMatchObject({ user_agent: 'Mozilla/5.0', machine: true });
  expect(events[2].details).toMatchObject({ machine: false });
  expect(events[2].details.ip).toBe('127.0.0.1');
  expect(events[3].details.url).toBe('https://shop.example/sale?x=1&y=2');

  const again = await h.call('POST', '/email/send', { to: 'ada@example.com', template_id: tpl.body.id });
  expect(again.body.status).toBe('suppressed');

  const stats = await h.call('GET', '/email/stats?date_from=2026-04-01&date_to=2026-04-01');
  expect(stats.body).toEqual({
    object: 'email_stats',
    date_range: { from: '2026-04-01', to: '2026-04-01' },
    sent: 1,
    delivered: 1,
    opened: 1,
    clicked: 1,
    bounced: 0,
    complained: 0,
    unsubscribed: 1,
    open_rate: 100,
    click_rate: 100,
    bounce_rate: 0,
  });
  const bad = await h.call('GET', '/email/stats?date_from=2026-02-30');
  expect(bad.body.error.param).toBe('date_from');
});

test("an open answered just before shutdown is written by the shutdown's drain, and one after it before its answer; a forged token records nothing", async () => {
  const { h } = await world();
  const sent = await h.call('POST', '/email/send', { to: 'bob@example.com', subject: 'Hi', html: '<p>Hi</p>' });
  await runJobs(h);
  const [m] = await h.db.query<{ tracking_token: string }>('SELECT tracking_token FROM email_messages WHERE id = $1', [sent.body.id]);
  const pixel = (token: string) => `/e/o/${sent.body.id}/${token}.gif`;
  const person = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0' };
  const opens = async () =>
    (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_events WHERE message_id = $1 AND event = 'opened'`, [sent.body.id]))[0].n;
  openBatching.delayMs = 60_000; // the batch would wait a minute: only the shutdown can write it now
  try {
    h.clock.advance(60_000);
    expect((await h.raw('GET', pixel(m.tracking_token), undefined, person)).status).toBe(200);
    expect((await h.raw('GET', pixel('0'.repeat(32)), undefined, person)).status).toBe(200);
    expect(await opens()).toBe(0);
    // What `svc serve` runs at shutdown before the database closes (core/server.ts).
    await drainWriteBehinds(h.db);
    expect(await opens()).toBe(1);
    // Requests still finishing after it (cut by the grace period): written before they are answered.
    await h.raw('GET', pixel(m.tracking_token), undefined, person);
    expect(await opens()).toBe(2);
  } finally {
    openBatching.delayMs = 5;
    openBuffer.resume(h.db); // the database is shared by this file's other tests
  }
  const stats = await h.call('GET', '/email/stats?date_from=2026-04-01&date_to=2026-04-01');
  expect(stats.body.opened).toBe(1);
});
