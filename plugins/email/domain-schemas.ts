import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const DomainCreate = Input({
  domain: Type.String({
    minLength: 3,
    maxLength: 253,
    // Length is minLength/maxLength's job: no lookahead, which the fuzz generators cannot read.
    pattern: '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}\\.?$',
    errorMessage: 'must be a domain name such as mail.example.com',
  }),
});
export const DomainId = Input({ id: Uuid('Domain id') });
export const DomainQuery = Input({ ...ListParams });

const Finding = Type.String({ description: '`valid`, or what is wrong with the record.' });
export const DnsRecord = Type.Object({
  purpose: Type.String({ description: 'spf, dkim, dmarc or tracking' }),
  type: Type.String({ description: 'TXT or CNAME' }),
  name: Type.String({ description: 'Relative to the domain (`@` is the domain itself).' }),
  host: Type.String({ description: 'The full name.' }),
  value: Type.String(),
});
export const Domain = Type.Object({
  object: Type.Literal('email_domain'),
  id: Uuid(),
  domain: Type.String(),
  status: Type.String({ description: 'pending or verified' }),
  dns_records: Type.Array(DnsRecord, {
    description: 'The records to publish; empty while the server has no SVC_EMAIL_DNS_ZONE (there is nowhere for them to point).',
  }),
  spf: Type.Optional(Finding),
  dkim: Type.Optional(Finding),
  dmarc: Type.Optional(Finding),
  verified_at: Type.Union([Timestamp(), Type.Null()]),
  checked_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const DomainList = ListOf(Domain);
