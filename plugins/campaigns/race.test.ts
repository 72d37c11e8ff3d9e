import { afterAll, expect, test } from 'bun:test';
import { closeTransports } from '../email/delivery';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { backend } from '../../test/kit/db';
import { setup } from '../../test/kit/setup';

afterAll(() => closeTransports());

async function audience(h: Awaited<ReturnType<typeof setup>>, tag: string) {
  const rules = { match: 'all', conditions: [{ field: 'tags', operator: 'contains', value: tag }] };
  const s = await h.call('POST', '/segments', { name: tag, rules });
  const t = await h.call('POST', '/email/templates', {
    name: 'Sale',
    slug: 'race',
    category: 'marketing',
    subject: 'Sale',
    html: '<p>Sale. <a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
    text: 'Sale. Unsubscribe: {{unsubscribe_url}}',
  });
  return { segment_id: s.body.id as string, template_id: t.body.id as string };
}

async function world(n: number, rate: number) {
  // A relay nobody runs: deliveries stay queued (this test counts messages made, not delivered).
  const h = await setup({ env: { SMTP_URL: 'smtp://127.0.0.1:9', SVC_EMAIL_FROM: 'news@svc.test', SVC_PUBLIC_URL: 'https://svc.test' } });
  for (let i = 0; i < n; i++) {
    const r = await h.call('POST', '/customers', { email: `m${i}@example.com`, tags: ['race'], accepts_marketing: true });
    expect(r.status).toBe(201);
  }
  const made = (await h.call('POST', '/campaigns', { name: 'Race', ...(await audience(h, 'race')), send_now: true, send_rate_per_minute: rate }))
    .body;
  const [job] = await takeQueued(h, 'campaigns.send');
  const sent = async () => (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_messages WHERE store_id = $1`, [h.store.id]))[0].n;
  const perAddress = async () =>
    (
      await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_messages WHERE store_id = $1 GROUP BY to_addresses->>0`, [h.store.id])
    ).map((r) => r.n);
  return { h, made, job, sent, perAddress };
}

/**
 * Several runs of one campaign's job at once (a retry, resume's run, a job delivered twice): on
 * PostgreSQL they overlap, which proves the locks (FOR SHARE on the campaign, SKIP LOCKED on its
 * recipients); the embedded database takes them in turns, which proves the bookkeeping.
 */
test('racing runs, a pause and a resume mail every member exactly once', async () => {
  const { h, made, job, sent, perAddress } = await world(20, 5);
  // Three runs of the same job at once: each sends its minute (5), none the same member.
  await Promise.all([1, 2, 3].map(() => runJob(h, 'campaigns.send', [job])));
  expect(await sent()).toBe(15);
  const next = await takeQueued(h, 'campaigns.send');
  expect(next.length).toBe(3);

  expect((await h.call('POST', `/campaigns/${made.id}/pause`)).body.status).toBe('paused');
  await Promise.all(next.map((j) => runJob(h, 'campaigns.send', [j])));
  expect(await sent()).toBe(15); // a paused campaign's runs send nothing

  expect((await h.call('POST', `/campaigns/${made.id}/resume`)).body.status).toBe('sending');
  const [resumed] = await takeQueued(h, 'campaigns.send');
  await Promise.all([
    runJob(h, 'campaigns.send', [resumed]),
    runJob(h, 'campaigns.send', [resumed]),
    ...next.map((j) => runJob(h, 'campaigns.send', [j])),
  ]);

  const counts = await perAddress();
  expect(counts.length).toBe(20);
  expect(counts.every((n) => n === 1)).toBe(true);
  expect((await h.call('GET', `/campaigns/${made.id}`)).body).toMatchObject({ status: 'sent', recipients: { total: 20, sent: 20, pending: 0 } });
});

test.skipIf(backend !== 'postgres')(
  'on PostgreSQL (skipped on the embedded database, which runs one transaction at a time): a pause while runs send stops them at once',
  async () => {
    const { h, made, job, sent, perAddress } = await world(40, 600);
    let atPause = -1;
    const pausing = (async () => {
      while ((await sent()) < 5) await Bun.sleep(2);
      const p = await h.call('POST', `/campaigns/${made.id}/pause`);
      expect([p.status, p.body.status]).toEqual([200, 'paused']);
      atPause = await sent();
    })();
    await Promise.all([...[1, 2, 3].map(() => runJob(h, 'campaigns.send', [job])), pausing]);
    // A send in flight when pause was asked committed before pause answered; none started after.
    expect(await sent()).toBe(atPause);
    expect(atPause).toBeLessThan(40);
    expect((await perAddress()).every((n) => n === 1)).toBe(true);
  },
);
