import { afterAll, expect, test } from 'bun:test';
import nodemailer from 'nodemailer';
import { setup } from '../../test/kit/setup';
import { createLogger } from '../../core/log';
import { closeTransports } from '../email/delivery';
import { freePort, runJobs, startRelay } from '../../test/kit/email';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inboundSignature } from '../../core/sdk';
import { startSmtpListener } from './listener';
import { definePlugin, type PluginDef } from '../../core/plugins/contract';
import { runJob, takeQueued } from '../../test/kit/jobs';

const DOMAIN = 'in.svc.test';
const SECRET = 'inbound-secret-for-tests';
const stops: (() => unknown)[] = [];
afterAll(async () => {
  closeTransports();
  for (const s of stops.reverse()) await s();
});

async function world(extra: PluginDef[] = []) {
  const relay = await startRelay();
  stops.push(relay.stop);
  const h = await setup({
    extra,
    env: { SMTP_URL: relay.url, SVC_EMAIL_FROM: 'support@shop.test', SVC_EMAIL_INBOUND_DOMAIN: DOMAIN, SVC_INBOUND_SECRET: SECRET },
  });
  const smtp = await startSmtpListener(
    { db: h.db, clock: h.clock, log: createLogger({ sink: () => {} }), domain: DOMAIN, registry: h.registry },
    '127.0.0.1:0',
    () => {},
  );
  stops.push(smtp.stop);
  const inboxAddress = `s-${h.store.id.replace(/-/g, '')}@${DOMAIN}`;
  /** A raw message POSTed by a relay, signed as SVC_INBOUND_SECRET says. */
  const post = async (raw: string, secret = SECRET) => {
    const ts = String(Math.floor(h.clock.now().getTime() / 1000));
    const body = new TextEncoder().encode(raw);
    const res = await h.app.handle(
      new Request('http://svc.test/v1/inbound/email', {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', 'x-svc-timestamp': ts, 'x-svc-signature': inboundSignature(secret, ts, body) },
        body,
      }),
    );
    return { status: res.status, body: await res.json() };
  };
  return { h, relay, smtp, inboxAddress, post };
}

test('mail to the store arrives by SMTP as a thread matched to the customer; a reply threads both ways', async () => {
  const { h, relay, smtp, inboxAddress, post } = await world();
  const customer = await h.call('POST', '/customers', { email: 'Ada@Example.com', first_name: 'Ada' });
  const mta = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
  const first = await mta.sendMail({ from: 'ada@example.com', to: inboxAddress, subject: 'Where is my order?', text: 'Order 1001 has not arrived.' });
  mta.close();

  const list = await h.call('GET', '/email/threads?status=open');
  expect(list.body.data).toHaveLength(1);
  const thread = list.body.data[0];
  expect(thread).toMatchObject({
    object: 'email_thread',
    subject: 'Where is my order?',
    customer_id: customer.body.id,
    customer_email: 'ada@example.com',
    status: 'open',
    message_count: 1,
    assigned_to: null,
  });
  expect(thread.reply_address).toMatch(new RegExp(`^t-[0-9a-f]{32}-[0-9a-f]{16}@${DOMAIN}$`));

  const answer = await h.call('POST', `/email/threads/${thread.id}/reply`, { text: 'It ships today.' });
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ object: 'email_message', status: 'queued', to: ['ada@example.com'], subject: 'Re: Where is my order?' });
  await runJobs(h);
  const raw = relay.received[0].raw;
  expect(raw).toContain(`In-Reply-To: ${first.messageId}`);
  expect(raw).toContain(`Reply-To: ${thread.reply_address}`);
  // The return path is the message's own (VERP), so a bounce names it.
  expect(relay.received[0].from).toBe(`b-${answer.body.id.replace(/-/g, '')}@${DOMAIN}`);

  // The customer answers from their mail client (through a relay's signed POST this time).
  const [ours] = await h.db.query<{ message_id_header: string }>('SELECT message_id_header FROM email_messages WHERE id = $1', [answer.body.id]);
  const back = await post(
    [
      'From: Ada <ada@example.com>',
      `To: ${thread.reply_address}`,
      'Subject: Re: Where is my order?',
      'Message-ID: <ada-2@example.com>',
      `In-Reply-To: ${ours.message_id_header}`,
      '',
      'Thanks!',
    ].join('\r\n'),
  );
  expect(back).toMatchObject({ status: 200, body: { outcome: 'threaded', thread_id: thread.id } });
  const full = await h.call('GET', `/email/threads/${thread.id}`);
  expect(full.body.message_count).toBe(3);
  expect(full.body.messages.map((m: any) => [m.direction, m.text?.trim()])).toEqual([
    ['inbound', 'Order 1001 has not arrived.'],
    ['outbound', 'It ships today.'],
    ['inbound', 'Thanks!'],
  ]);
});

test('assign takes a member or null, close closes, and new mail reopens the thread', async () => {
  const { h, inboxAddress, post } = await world();
  await post(
    ['From: bob@example.com', `To: ${inboxAddress}`, 'Subject: Refund', 'Message-ID: <bob-1@example.com>', '', 'Please refund.'].join('\r\n'),
  );
  const thread = (await h.call('GET', '/email/threads')).body.data[0];
  const notMember = await h.call('POST', `/email/threads/${thread.id}/assign`, { assigned_to: crypto.randomUUID() });
  expect(notMember.status).toBe(400);
  expect(notMember.body.error.param).toBe('assigned_to');
  expect((await h.call('POST', `/email/threads/${thread.id}/assign`, { assigned_to: null })).body.assigned_to).toBeNull();
  expect((await h.call('POST', `/email/threads/${thread.id}/close`)).body.status).toBe('closed');
  expect((await h.call('GET', '/email/threads?status=open')).body.data).toEqual([]);
  await post(
    ['From: bob@example.com', `To: ${inboxAddress}`, 'Subject: Re: Refund', 'In-Reply-To: <bob-1@example.com>', '', 'Any news?'].join('\r\n'),
  );
  const again = (await h.call('GET', `/email/threads/${thread.id}`)).body;
  expect(again).toMatchObject({ status: 'open', message_count: 2 });
});

test('a DSN and an ARF report through the inbound path record bounced and complained and suppress the address', async () => {
  const { h, post } = await world();
  const m1 = (await h.call('POST', '/email/send', { to: 'gone@example.com', subject: 'Hi', text: 'Hi' })).body;
  const m2 = (await h.call('POST', '/email/send', { to: 'angry@example.com', subject: 'Hi', text: 'Hi' })).body;
  await runJobs(h);
  const verp = (id: string) => `b-${id.replace(/-/g, '')}@${DOMAIN}`;
  const dsn = await post(
    [
      'From: MAILER-DAEMON@mx.example.com',
      `To: ${verp(m1.id)}`,
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'The mail could not be delivered.',
      '--B',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.com',
      '',
      'Final-Recipient: rfc822; gone@example.com',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 User unknown',
      '--B--',
      '',
    ].join('\r\n'),
  );
  expect(dsn.body.outcome).toBe('bounced');
  const arf = await post(
    [
      'From: fbl@isp.example',
      `To: ${verp(m2.id)}`,
      'Subject: Complaint',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="F"',
      '',
      '--F',
      'Content-Type: text/plain',
      '',
      'A complaint.',
      '--F',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'User-Agent: isp-fbl/1.0',
      'Version: 1',
      'Original-Rcpt-To: angry@example.com',
      '--F--',
      '',
    ].join('\r\n'),
  );
  expect(arf.body.outcome).toBe('complained');

  const e1 = (await h.call('GET', `/email/messages/${m1.id}/events`)).body.data;
  expect(e1.map((e: any) => e.event)).toEqual(['delivered', 'bounced']);
  expect(e1[1].details).toMatchObject({ recipient: 'gone@example.com', status: '5.1.1', diagnostic: '550 5.1.1 User unknown' });
  expect((await h.call('GET', `/email/messages/${m1.id}`)).body.status).toBe('bounced');
  const e2 = (await h.call('GET', `/email/messages/${m2.id}/events`)).body.data;
  expect(e2.map((e: any) => e.event)).toEqual(['delivered', 'complained']);
  expect((await h.call('POST', '/email/send', { to: 'angry@example.com', subject: 'x', text: 'x' })).body.status).toBe('suppressed');
  expect((await h.call('POST', '/email/send', { to: 'gone@example.com', subject: 'x', text: 'x' })).body.status).toBe('suppressed');
});

test('a bounce reported through the inbound path reaches a plugin reacting to email.bounced, though no webhook subscribes', async () => {
  const seen: unknown[] = [];
  const watcher = definePlugin({
    name: 'bounce_watch',
    category: 'marketing',
    scopes: { read: ['bounce_watch'], write: ['bounce_watch'] },
    actions: {},
    on: { 'email.bounced': async (_ctx, event) => void seen.push(event.data) },
  });
  const { h, post } = await world([watcher]);
  const m = (await h.call('POST', '/email/send', { to: 'gone@example.com', subject: 'Hi', text: 'Hi' })).body;
  await runJobs(h);
  const report = [
    'From: MAILER-DAEMON@mx.example.com',
    `To: b-${m.id.replace(/-/g, '')}@${DOMAIN}`,
    'Subject: Undelivered',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
    '',
    '--B',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.com',
    '',
    'Final-Recipient: rfc822; gone@example.com',
    'Action: failed',
    'Status: 5.1.1',
    '--B--',
    '',
  ].join('\r\n');
  expect((await post(report)).body.outcome).toBe('bounced');
  const jobs = await takeQueued(h, 'bounce_watch.on');
  expect(jobs).toHaveLength(1);
  await runJob(h, 'bounce_watch.on', jobs);
  expect(seen).toEqual([expect.objectContaining({ object: 'email_event', message_id: m.id, event: 'bounced' })]);
});

test('an inbound POST with a wrong signature is refused and records nothing', async () => {
  const { h, inboxAddress, post } = await world();
  const r = await post(['From: eve@example.com', `To: ${inboxAddress}`, 'Subject: x', '', 'x'].join('\r\n'), 'not-the-secret');
  expect(r.status).toBe(401);
  expect(r.body.error.code).toBe('invalid_signature');
  expect((await h.call('GET', '/email/threads')).body.data).toEqual([]);
});

test('with SVC_SMTP_TLS_CERT and SVC_SMTP_TLS_KEY the listener offers STARTTLS: a sender requiring TLS delivers; without them it cannot', async () => {
  const { h, smtp: plain, inboxAddress } = await world();
  // A self-signed certificate for localhost, made for this test.
  const dir = mkdtempSync(join(tmpdir(), 'svc-smtp-tls-'));
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  const made = Bun.spawnSync([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
  ]);
  expect(made.exitCode).toBe(0);
  const port = freePort();
  const inbox = h.registry.plugins.find((p) => p.name === 'inbox')!;
  const lines: string[] = [];
  const started = await inbox.start!({
    db: h.db,
    clock: h.clock,
    registry: h.registry,
    log: createLogger({ sink: () => {} }),
    config: { smtp_listen: `127.0.0.1:${port}`, smtp_tls_cert: cert, smtp_tls_key: key },
    role: 'all',
    print: (l) => void lines.push(l),
  });
  stops.push(() => started!.stop());
  expect(lines.join('\n')).toContain('STARTTLS offered');

  const sender = (p: number) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: p,
      secure: false,
      requireTLS: true,
      tls: { ca: readFileSync(cert, 'utf8'), servername: 'localhost' },
    });
  const tlsSender = sender(port);
  await tlsSender.sendMail({ from: 'eve@example.com', to: inboxAddress, subject: 'Over TLS', text: 'Encrypted on the way in.' });
  tlsSender.close();
  const threads = (await h.call('GET', '/email/threads?status=open')).body.data;
  expect(threads.map((t: any) => t.subject)).toContain('Over TLS');

  // The listener without the settings offers no STARTTLS, so the same sender refuses to go on.
  const plainSender = sender(plain.port);
  await expect(plainSender.sendMail({ from: 'eve@example.com', to: inboxAddress, subject: 'Plain', text: 'x' })).rejects.toThrow();
  plainSender.close();
});

test('GET email/inbox shows the store inbox address (null without SVC_EMAIL_INBOUND_DOMAIN) and the open threads', async () => {
  const { h, inboxAddress, post } = await world();
  const empty = await h.call('GET', '/email/inbox');
  expect(empty.status).toBe(200);
  expect(empty.body).toEqual({ object: 'email_inbox', inbox_address: inboxAddress, open_threads: 0 });
  expect((await post(['From: ada@example.com', `To: ${inboxAddress}`, 'Subject: Hi', '', 'Hello'].join('\r\n'))).status).toBe(200);
  expect((await h.call('GET', '/email/inbox')).body.open_threads).toBe(1);
  const reader = await h.newKey(['inbox:read']);
  expect((await h.call('GET', '/email/inbox', undefined, { Authorization: `Bearer ${reader}` })).status).toBe(200);
  const bare = await setup();
  expect((await bare.call('GET', '/email/inbox')).body).toEqual({ object: 'email_inbox', inbox_address: null, open_threads: 0 });
});

test('an inbound POST to a server without SVC_INBOUND_SECRET or SVC_EMAIL_INBOUND_DOMAIN is a 400 naming the setting', async () => {
  const h = await setup({ env: { SVC_EMAIL_INBOUND_DOMAIN: DOMAIN } });
  const res = await h.app.handle(new Request('http://svc.test/v1/inbound/email', { method: 'POST', body: 'From: a@b.test\r\n\r\nx' }));
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_not_configured' });
  expect(body.error.message).toContain('SVC_INBOUND_SECRET');
  const noDomain = await setup({ env: { SVC_INBOUND_SECRET: SECRET } });
  const r2 = await noDomain.app.handle(new Request('http://svc.test/v1/inbound/email', { method: 'POST', body: 'x' }));
  expect(r2.status).toBe(400);
  expect((await r2.json()).error.message).toContain('SVC_EMAIL_INBOUND_DOMAIN');
});
