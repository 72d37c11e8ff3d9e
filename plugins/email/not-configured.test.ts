/**
 * Issue 44: a setting the operator has not made is a 400 invalid_request_error naming it (a retry
 * cannot heal it), lists and reads answer without it, and another store's id is 404 first.
 */
import { expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';

const ZONE = 'dns.svc.test';

const expectNotConfigured = (r: { status: number; body: any }, setting: string) => {
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_not_configured' });
  expect(r.body.error.message).toContain(setting);
};

test('without SVC_EMAIL_DNS_ZONE: domains list and read, another store id is 404, only adding and verifying name the setting', async () => {
  const h = await setup(); // no zone
  const zoned = h.elsewhere({ SVC_EMAIL_DNS_ZONE: ZONE });
  const made = await zoned.call('POST', '/email/domains', { domain: 'mail.example.com' });
  expect(made.status).toBe(201);

  const list = await h.call('GET', '/email/domains');
  expect(list.status).toBe(200);
  expect(list.body.data.map((d: any) => d.id)).toEqual([made.body.id]);
  const read = await h.call('GET', `/email/domains/${made.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: made.body.id, domain: 'mail.example.com', dns_records: [] });

  expectNotConfigured(await h.call('POST', '/email/domains', { domain: 'other.example.com' }), 'SVC_EMAIL_DNS_ZONE');
  expectNotConfigured(await h.call('POST', `/email/domains/${made.body.id}/verify`), 'SVC_EMAIL_DNS_ZONE');

  const stranger = await setup(); // another store, no zone either
  expect((await stranger.call('GET', '/email/domains')).body.data).toEqual([]);
  expect((await stranger.call('POST', `/email/domains/${made.body.id}/verify`)).status).toBe(404);
  expect((await stranger.call('POST', `/email/domains/${crypto.randomUUID()}/verify`)).status).toBe(404);
  expect((await stranger.call('GET', `/email/domains/${made.body.id}`)).status).toBe(404);
}, 30_000);

test('without SVC_PUBLIC_URL a marketing send is a 400 naming it; transactional mail still goes', async () => {
  const h = await setup({ env: { SVC_EMAIL_FROM: 'noreply@svc.test' } });
  const tpl = await h.call('POST', '/email/templates', {
    name: 'News',
    slug: 'news',
    category: 'marketing',
    subject: 'News',
    html: '<p>News</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
    text: 'News. Unsubscribe: {{unsubscribe_url}}',
  });
  expect(tpl.status).toBe(201);
  expectNotConfigured(await h.call('POST', '/email/send', { to: 'ada@example.com', template_id: tpl.body.id }), 'SVC_PUBLIC_URL');
  expectNotConfigured(
    await h.call('POST', '/email/send', { to: 'ada@example.com', category: 'marketing', subject: 'Hi', text: 'Hello' }),
    'SVC_PUBLIC_URL',
  );
  const plain = await h.call('POST', '/email/send', { to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
  expect(plain.status).toBe(201);
});
