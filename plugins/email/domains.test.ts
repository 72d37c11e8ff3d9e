import { afterAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { runCron } from '../../test/kit/jobs';
import { lookupTxt, startDnsListener } from './dns';
import { startResolver } from '../../test/kit/email';

const ZONE = 'dns.svc.test';
const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

/** svc's DNS listener for the zone, a resolver holding the customer's records, and an app using it. */
async function world() {
  const base = await setup();
  const listener = await startDnsListener({ db: base.db, zone: ZONE, listen: '127.0.0.1:0', spf: 'ip4:192.0.2.10', log: () => {} });
  stops.push(listener.stop);
  const resolver = await startResolver({}, ZONE, listener.port);
  stops.push(resolver.stop);
  const env = { SVC_EMAIL_DNS_ZONE: ZONE, SVC_DNS_RESOLVER: resolver.address, SVC_PUBLIC_URL: 'https://svc.example.net' };
  return { h: base.elsewhere(env), base, resolver, listener };
}

/** Publishes the records a domain's `dns_records` ask for, as its owner would. */
function publish(records: Record<string, any[]>, domain: any) {
  for (const r of domain.dns_records) records[r.host] = [{ type: r.type, value: r.value }];
}

test('a domain answers pending with the four SPEC records; verify checks them in DNS and reports each', async () => {
  const { h, resolver } = await world();
  const made = await h.call('POST', '/email/domains', { domain: 'Mail.Example.com' });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ object: 'email_domain', domain: 'mail.example.com', status: 'pending', verified_at: null });
  const label = made.body.id.replace(/-/g, '');
  expect(made.body.dns_records.map((r: any) => [r.type, r.name, r.value])).toEqual([
    ['TXT', '@', `v=spf1 include:spf.${ZONE} ~all`],
    ['CNAME', 'svc._domainkey', `${label}.dkim.${ZONE}`],
    ['CNAME', '_dmarc', `${label}.dmarc.${ZONE}`],
    ['CNAME', 'tracking', 'svc.example.net'],
  ]);

  const before = await h.call('POST', `/email/domains/${made.body.id}/verify`);
  expect(before.status).toBe(200);
  expect(before.body.status).toBe('pending');
  expect(before.body.spf).toStartWith('missing');
  expect(before.body.dkim).toStartWith('missing');
  expect(before.body.dmarc).toStartWith('missing');

  publish(resolver.records, made.body);
  const after = await h.call('POST', `/email/domains/${made.body.id}/verify`);
  expect(after.body).toMatchObject({ status: 'verified', spf: 'valid', dkim: 'valid', dmarc: 'valid' });
  expect(after.body.verified_at).toBeString();
  expect((await h.call('GET', `/email/domains/${made.body.id}`)).body.status).toBe('verified');
});

test("the listener publishes the whole 2048-bit key as one record, and a key that is not the domain's own fails DKIM", async () => {
  const { h, resolver } = await world();
  const a = (await h.call('POST', '/email/domains', { domain: 'a.example.com' })).body;
  const b = (await h.call('POST', '/email/domains', { domain: 'b.example.com' })).body;
  const dkimTarget = a.dns_records.find((r: any) => r.purpose === 'dkim').value;
  const { txt } = await lookupTxt({ address: '127.0.0.1', port: resolver.port }, dkimTarget);
  expect(txt).toHaveLength(1);
  expect(txt[0]).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{390,}$/);

  publish(resolver.records, a);
  // b's DKIM CNAME pointed at a's key: the chain is not b's target.
  publish(resolver.records, b);
  resolver.records[`svc._domainkey.b.example.com`] = [{ type: 'CNAME', value: dkimTarget }];
  const wrongTarget = await h.call('POST', `/email/domains/${b.id}/verify`);
  expect(wrongTarget.body.status).toBe('pending');
  expect(wrongTarget.body.dkim).toContain('expected');
  // a's key published directly as b's TXT: some key, but not b's own.
  resolver.records[`svc._domainkey.b.example.com`] = [{ type: 'TXT', value: txt[0] }];
  const wrongKey = await h.call('POST', `/email/domains/${b.id}/verify`);
  expect(wrongKey.body.dkim).toBe("invalid: the DKIM key at svc._domainkey.b.example.com is not this domain's key");
  expect(wrongKey.body.spf).toBe('valid');
});

test('the periodic re-check notices records that disappear', async () => {
  const { h, base, resolver } = await world();
  const d = (await h.call('POST', '/email/domains', { domain: 'c.example.com' })).body;
  publish(resolver.records, d);
  expect((await h.call('POST', `/email/domains/${d.id}/verify`)).body.status).toBe('verified');
  delete resolver.records['_dmarc.c.example.com'];
  await runCron({ db: base.db, clock: base.clock, registry: h.registry }, 'email.recheck');
  const after = (await h.call('GET', `/email/domains/${d.id}`)).body;
  expect(after).toMatchObject({ status: 'pending', spf: 'valid', dkim: 'valid', verified_at: null });
  expect(after.dmarc).toStartWith('missing');
});

test('without SVC_EMAIL_DNS_ZONE adding a domain is a clear error naming the setting; a domain is unique per store', async () => {
  const h = await setup();
  const r = await h.call('POST', '/email/domains', { domain: 'example.com' });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('provider_not_configured');
  expect(r.body.error.message).toContain('SVC_EMAIL_DNS_ZONE');
  const { h: z } = await world();
  expect((await z.call('POST', '/email/domains', { domain: 'dup.example.com' })).status).toBe(201);
  const again = await z.call('POST', '/email/domains', { domain: 'dup.example.com' });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'duplicate_domain', param: 'domain' });
  expect((await z.call('POST', '/email/domains', { domain: 'not a domain' })).body.error.param).toBe('domain');
});
