/**
 * svc's composer for plain messages (mime.ts) against nodemailer's, read back by mailparser: a
 * recipient's mail client must see the same message whichever composed it.
 */
import { expect, test } from 'bun:test';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { composeSimple, type SimpleMail } from './mime';

const base: SimpleMail = {
  from: 'hi@mail.shop.test',
  to: ['ada@example.com'],
  subject: 'Your order',
  text: 'Thanks.',
  html: '<p>Thanks.</p>',
  messageId: '<m1@mail.shop.test>',
  date: new Date(Date.UTC(2026, 3, 1, 12, 0, 0)),
  headers: {},
  attachments: [],
};

const longUrl = `https://svc.test/e/c/${'a'.repeat(40)}/${'b'.repeat(32)}?u=${encodeURIComponent('https://shop.test/p?x=1&y=2')}`;
const cases: [string, Partial<SimpleMail>][] = [
  ['text and html', {}],
  ['text only', { html: undefined }],
  ['html only', { text: undefined }],
  ['several recipients and a reply-to', { to: ['a@example.com', 'b@example.com', 'c.d+e@example.org'], replyTo: 't-1@in.shop.test' }],
  ['a long subject folded at its spaces', { subject: `Order 1001: ${'lamp '.repeat(30)}and   three  spaces, end` }],
  [
    'thread headers, long References',
    { headers: { 'In-Reply-To': '<x1@example.com>', References: Array.from({ length: 12 }, (_, i) => `<id-${i}-abcdef@example.com>`).join(' ') } },
  ],
  ['List-Unsubscribe longer than a line', { headers: { 'List-Unsubscribe': `<${longUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }],
  [
    'bodies quoted-printable must escape',
    {
      text: `Grüße, Ada! 100% = sure.  \nTrailing tab\t\n.starts with a dot\n${'x'.repeat(200)}\r\nemoji 🎉 and ${'é'.repeat(60)}\n\n`,
      html: `<p style="a=b">Grüße</p>\n<a href="${longUrl}">${'long '.repeat(40)}</a> =3D `,
    },
  ],
];

const viaNodemailer = (m: SimpleMail) => new MailComposer({ ...m } as any).compile().build();

test.each(cases)('%s: mailparser reads the same message from svc as from nodemailer', async (_name, change) => {
  const mail = { ...base, ...change };
  const ours = composeSimple(mail);
  expect(ours).toBeDefined();
  for (const line of ours!.toString('latin1').split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
  for (const line of ours!.toString('latin1').split('\r\n\r\n')[0].split('\r\n')) expect(line.trim().length).toBeGreaterThan(0);
  const [a, b] = await Promise.all([simpleParser(ours!), simpleParser(await viaNodemailer(mail))]);
  expect(a.subject).toBe(b.subject!);
  expect(a.from?.text).toBe(b.from?.text!);
  expect(a.to && (Array.isArray(a.to) ? a.to : [a.to]).map((t) => t.text)).toEqual(b.to && (Array.isArray(b.to) ? b.to : [b.to]).map((t) => t.text));
  expect(a.replyTo?.text).toBe(b.replyTo?.text);
  expect(a.messageId).toBe(b.messageId!);
  expect(a.inReplyTo).toBe(b.inReplyTo);
  expect(a.references).toEqual(b.references);
  expect(a.headers.get('list-unsubscribe')).toEqual(b.headers.get('list-unsubscribe'));
  expect(a.headers.get('list-unsubscribe-post')).toEqual(b.headers.get('list-unsubscribe-post'));
  expect(a.text).toBe(b.text);
  expect(a.html).toBe(b.html);
  // Both take the Date header from the sending job's clock, not the wall clock.
  expect(a.date?.toISOString()).toBe(mail.date.toISOString());
  expect(b.date?.toISOString()).toBe(mail.date.toISOString());
});

test('messages it cannot write plainly are left to nodemailer', () => {
  expect(composeSimple({ ...base, attachments: [{ filename: 'a.pdf' }] })).toBeUndefined();
  expect(composeSimple({ ...base, subject: 'Grüße' })).toBeUndefined(); // needs an encoded word
  expect(composeSimple({ ...base, headers: { Subject: 'again' } })).toBeUndefined();
  expect(composeSimple({ ...base, headers: { 'X-Long': 'x'.repeat(1200) } })).toBeUndefined();
});
