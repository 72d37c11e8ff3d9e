/**
 * svc's own DKIM signer (dkim.ts) against an independent verifier (mailauth), on messages composed
 * as delivery composes them, including what canonicalization must get right: folded headers,
 * encoded words, several recipients, blanks at line ends, trailing empty lines, attachments.
 */
import { expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { dkimSign } from './dkim';
import { dkimTxt } from './domains';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { domainName: 'mail.shop.test', keySelector: 'svc', privateKey };
const record = dkimTxt(publicKey.export({ type: 'spki', format: 'der' }).toString('base64'));

/** mailauth's verdict on `raw`, with svc.__domainkey.mail.shop.test publishing the key. */
async function verify(raw: Buffer) {
  const result = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      if (type === 'TXT' && name === 'svc._domainkey.mail.shop.test') return [[record]];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    },
  });
  return result.results[0];
}

const compose = (mail: Record<string, unknown>): Promise<Buffer> => new MailComposer(mail as any).compile().build();

test('a signed message verifies, with the signing domain and every header that matters signed', async () => {
  const raw = await compose({
    from: 'Shop <hi@mail.shop.test>',
    to: ['ada@example.com', 'Grace Hopper <grace@example.com>'],
    replyTo: 'help@mail.shop.test',
    subject: `Ihre Bestellung über ${'sehr '.repeat(30)}viele Dinge ✓`,
    text: 'Thanks.  \t \r\nTwo   blanks\t\tand tabs.   \r\n\r\n\r\n\r\n',
    html: '<p>Thanks.</p>',
    messageId: '<m1@mail.shop.test>',
    headers: {
      'List-Unsubscribe': `<https://svc.test/e/u/${'x'.repeat(120)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'In-Reply-To': '<a@example.com>',
    },
    attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.alloc(3000, 7).toString('base64'), encoding: 'base64' }],
  });
  const signed = dkimSign(raw, key);
  expect(signed.toString('latin1').startsWith('DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=mail.shop.test; s=svc;')).toBe(true);
  const result = await verify(signed);
  expect(result.status.result).toBe('pass');
  expect(result.signingDomain).toBe('mail.shop.test');
  const signedFields = /\sh=([^;]+);/.exec(signed.toString('latin1'))![1].replace(/\s/g, '').split(':');
  for (const f of ['from', 'to', 'subject', 'date', 'message-id', 'reply-to', 'list-unsubscribe', 'list-unsubscribe-post', 'in-reply-to']) {
    expect(signedFields).toContain(f);
  }
});

test('a message with a text body only, and one whose body is empty, verify too', async () => {
  for (const text of ['Hi', '']) {
    const raw = await compose({ from: 'hi@mail.shop.test', to: 'ada@example.com', subject: 'Hi', text, messageId: '<m2@mail.shop.test>' });
    expect((await verify(dkimSign(raw, key))).status.result).toBe('pass');
  }
});

test('a changed body or subject after signing fails verification', async () => {
  const raw = await compose({ from: 'hi@mail.shop.test', to: 'ada@example.com', subject: 'Pay 10 EUR', text: 'Pay 10 EUR to the shop.' });
  const signed = dkimSign(raw, key).toString('latin1');
  expect((await verify(Buffer.from(signed.replace('Subject: Pay 10 EUR', 'Subject: Pay 99 EUR'), 'latin1'))).status.result).toBe('fail');
  expect((await verify(Buffer.from(signed.replace('Pay 10 EUR to', 'Pay 99 EUR to'), 'latin1'))).status.result).not.toBe('pass');
});
