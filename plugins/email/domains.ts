import { generateKeyPairSync } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { errors, iso, isoOrNull, listPage, rowOr404, secretBox, unique, type Ctx, type Row } from '../../core/sdk';
import type { EmailSettings } from './config';
import type { DomainCreate, DomainQuery } from './domain-schemas';

/** The DKIM selector every domain publishes (SPEC 3.2: the CNAME at `svc._domainkey`). */
export const SELECTOR = 'svc';

/** The zone's label for one domain: its id without dashes (32 hex characters, a valid DNS label). */
export const labelOf = (domainId: string) => domainId.replace(/-/g, '');

/** Where each CNAME of a domain points inside the instance's zone (core of the DNS listener too). */
export const targets = (domainId: string, zone: string) => ({
  spf: `spf.${zone}`,
  dkim: `${labelOf(domainId)}.dkim.${zone}`,
  dmarc: `${labelOf(domainId)}.dmarc.${zone}`,
});

export const dkimTxt = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;
export const DMARC_POLICY = 'v=DMARC1; p=none; adkim=r; aspf=r';

export function dnsRecords(r: Row, zone: string | undefined, publicUrl?: string) {
  if (!zone) return [];
  const t = targets(r.id, zone);
  const trackingHost = publicUrl ? new URL(publicUrl).hostname : `track.${zone}`;
  return [
    { purpose: 'spf', type: 'TXT', name: '@', host: r.domain, value: `v=spf1 include:${t.spf} ~all` },
    { purpose: 'dkim', type: 'CNAME', name: `${SELECTOR}._domainkey`, host: `${SELECTOR}._domainkey.${r.domain}`, value: t.dkim },
    { purpose: 'dmarc', type: 'CNAME', name: '_dmarc', host: `_dmarc.${r.domain}`, value: t.dmarc },
    { purpose: 'tracking', type: 'CNAME', name: 'tracking', host: `tracking.${r.domain}`, value: trackingHost },
  ];
}

export function toDomain(r: Row, zone: string | undefined, publicUrl?: string) {
  const f = r.findings ?? {};
  return {
    object: 'email_domain' as const,
    id: r.id,
    domain: r.domain,
    status: r.status,
    dns_records: dnsRecords(r, zone, publicUrl),
    ...(r.findings ? { spf: f.spf, dkim: f.dkim, dmarc: f.dmarc } : {}),
    verified_at: isoOrNull(r.verified_at),
    checked_at: isoOrNull(r.checked_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** SVC_EMAIL_DNS_ZONE, lower case without its final dot, if the operator set it (reads show no records without it). */
export const zoneIfSet = (ctx: { config: EmailSettings }): string | undefined => ctx.config.dns_zone?.replace(/\.$/, '').toLowerCase() || undefined;

/** SVC_EMAIL_DNS_ZONE, or 400 naming it: without a zone there is nowhere for the CNAMEs to point. */
export function zoneOf(ctx: { config: EmailSettings }): string {
  const zone = zoneIfSet(ctx);
  if (!zone)
    throw errors.notConfigured(
      'SVC_EMAIL_DNS_ZONE',
      'sending domains need the DNS zone this instance serves (SVC_DNS_LISTEN) for their DKIM and DMARC records',
    );
  return zone;
}

export async function createDomain(ctx: Ctx, input: Static<typeof DomainCreate>) {
  const zone = zoneOf(ctx);
  const domain = input.domain.toLowerCase().replace(/\.$/, '');
  const id = crypto.randomUUID();
  // 2048-bit RSA: what RFC 8301 asks signers to use, and one TXT record still holds the key.
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pub = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const sealed = secretBox().seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), `email_domain:${id}`);
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO email_domains (id, store_id, domain, status, dkim_public, dkim_private_sealed, created_at, updated_at)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6, $6) RETURNING *`,
      [id, ctx.store.id, domain, pub, sealed, ctx.clock.now()],
    ),
    { email_domains_store_domain: () => errors.conflict(`The domain '${domain}' is already added to this store.`, 'duplicate_domain', 'domain') },
  );
  return toDomain(row, zone, ctx.registry.site.publicUrl);
}

export const domainRow = (ctx: Ctx, id: string) => rowOr404(ctx.db, { table: 'email_domains', storeId: ctx.store.id, id, noun: 'email domain' });

export const getDomain = async (ctx: Ctx, id: string) => toDomain(await domainRow(ctx, id), zoneIfSet(ctx), ctx.registry.site.publicUrl);

export const listDomains = (ctx: Ctx, input: Static<typeof DomainQuery>) => {
  const zone = zoneIfSet(ctx);
  return listPage(ctx, { table: 'email_domains', path: '/email/domains', input }, (rows) =>
    rows.map((r) => toDomain(r, zone, ctx.registry.site.publicUrl)),
  );
};

export async function deleteDomain(ctx: Ctx, id: string) {
  await domainRow(ctx, id);
  await ctx.db.query('DELETE FROM email_domains WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  return { id, object: 'email_domain', deleted: true };
}

/** The private DKIM key of a domain row, unsealed for signing (never returned or logged). */
export const dkimPrivateKey = (r: Row) => secretBox().open(r.dkim_private_sealed, `email_domain:${r.id}`);

/** The store's verified domain for an address's domain part, if any. */
export async function verifiedDomainFor(db: Ctx['db'], storeId: string, address: string): Promise<Row | undefined> {
  const host = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const [row] = await db.query(`SELECT * FROM email_domains WHERE store_id = $1 AND domain = $2 AND status = 'verified'`, [storeId, host]);
  return row;
}
