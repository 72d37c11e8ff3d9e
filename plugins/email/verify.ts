import { errorFields, type Ctx, type Db, type JobDeps, type Row } from '../../core/sdk';
import { domainRow, dkimTxt, SELECTOR, targets, toDomain, zoneOf } from './domains';
import { lookupTxt, resolverOf, type ResolverAddress } from './dns';

export interface Findings {
  spf: string;
  dkim: string;
  dmarc: string;
}

const VALID = 'valid';

/** A lookup that failed (timeout, SERVFAIL) is a finding, not an error of the call. */
async function safely(what: string, fn: () => Promise<string>): Promise<string> {
  try {
    return await fn();
  } catch (e) {
    return `could not look up ${what}: ${(e as Error).message}`;
  }
}

/**
 * The three checks of SPEC 3.2, each `valid` or what is wrong. DKIM follows the CNAME at
 * svc._domainkey to the key and checks it is this domain's own key, not merely some key.
 */
export async function checkDomain(r: Row, zone: string, resolver: ResolverAddress): Promise<Findings> {
  const t = targets(r.id, zone);
  const spf = safely('SPF', async () => {
    const records = (await lookupTxt(resolver, r.domain)).txt.filter((s) => /^v=spf1(\s|$)/i.test(s));
    if (!records.length) return `missing: no TXT record starting v=spf1 at ${r.domain}`;
    if (records.length > 1) return `invalid: ${records.length} SPF records at ${r.domain}; publish exactly one`;
    return records[0].toLowerCase().split(/\s+/).includes(`include:${t.spf}`) ? VALID : `invalid: the SPF record does not include:${t.spf}`;
  });
  const dkim = safely('DKIM', async () => {
    const name = `${SELECTOR}._domainkey.${r.domain}`;
    const { txt, chain } = await lookupTxt(resolver, name);
    if (!chain.length && !txt.length) return `missing: no CNAME at ${name} (expected ${t.dkim})`;
    if (chain.length && chain[0] !== t.dkim) return `invalid: ${name} points to ${chain[0]}, expected ${t.dkim}`;
    if (!txt.length) return `invalid: ${t.dkim} has no DKIM key (is ${zone} delegated to this server?)`;
    const expected = dkimTxt(r.dkim_public).replace(/\s+/g, '');
    return txt.some((s) => s.replace(/\s+/g, '') === expected) ? VALID : `invalid: the DKIM key at ${name} is not this domain's key`;
  });
  const dmarc = safely('DMARC', async () => {
    const name = `_dmarc.${r.domain}`;
    const { txt } = await lookupTxt(resolver, name);
    if (!txt.some((s) => /^v=DMARC1(;|\s|$)/i.test(s))) return `missing: no DMARC record at ${name} (CNAME it to ${t.dmarc})`;
    return VALID;
  });
  return { spf: await spf, dkim: await dkim, dmarc: await dmarc };
}

/** Stores the findings: all valid makes the domain verified (verified_at kept from the first time). */
async function record(db: Db, r: Row, f: Findings, now: Date): Promise<Row> {
  const ok = f.spf === VALID && f.dkim === VALID && f.dmarc === VALID;
  const [row] = await db.query(
    `UPDATE email_domains SET findings = $3::text::jsonb, checked_at = $4, updated_at = $4,
       status = $5, verified_at = CASE WHEN $5 = 'verified' THEN coalesce(verified_at, $4) ELSE NULL END
     WHERE store_id = $1 AND id = $2 RETURNING *`,
    [r.store_id, r.id, JSON.stringify(f), now, ok ? 'verified' : 'pending'],
  );
  return row;
}

export async function verifyDomain(ctx: Ctx, id: string) {
  const r = await domainRow(ctx, id); // another store's id is 404 before the setting is looked at
  const zone = zoneOf(ctx);
  const findings = await checkDomain(r, zone, resolverOf(ctx.config.dns_resolver));
  return toDomain(await record(ctx.db, r, findings, ctx.clock.now()), zone, ctx.registry.site.publicUrl);
}

/** The `recheck` job: verified domains are checked again, so records that disappear are noticed. */
export async function recheckDomains(deps: JobDeps) {
  const zone = deps.config.dns_zone as string | undefined;
  if (!zone) return;
  const rows = await deps.db.query(`SELECT * FROM email_domains WHERE status = 'verified' ORDER BY checked_at NULLS FIRST LIMIT 1000`);
  const resolver = resolverOf(deps.config.dns_resolver);
  for (const r of rows) {
    try {
      const after = await record(deps.db, r, await checkDomain(r, zone.toLowerCase(), resolver), deps.clock.now());
      if (after.status !== 'verified') deps.log.warn('email domain no longer verifies', { domain_id: r.id, findings: after.findings });
    } catch (e) {
      deps.log.warn('email domain re-check failed', { domain_id: r.id, ...errorFields(e) });
    }
  }
}
