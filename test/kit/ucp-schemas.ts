/**
 * Every UCP response a test sees is validated against the vendored UCP 2026-04-08 schemas (Ajv,
 * draft 2020-12): the whole set, loaded from plugins/checkout/ucp/schemas.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'bun:test';
import { PROFILE_ID, ucpAjv } from '../../plugins/checkout/ucp/validate';

const DIR = join(import.meta.dir, '..', '..', 'plugins', 'checkout', 'ucp', 'schemas');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.json') ? [join(dir, n)] : []));

const ajv = ucpAjv(files(DIR).map((f) => JSON.parse(readFileSync(f, 'utf8'))));
const S = 'https://ucp.dev/schemas/shopping';
const KINDS = {
  checkout: {
    allOf: [{ $ref: `${S}/fulfillment.json#/$defs/dev.ucp.shopping.checkout` }, { $ref: `${S}/discount.json#/$defs/dev.ucp.shopping.checkout` }],
  },
  order: { $ref: `${S}/order.json` },
  error: { $ref: `${S}/types/error_response.json` },
  search: { $ref: `${S}/catalog_search.json#/$defs/search_response` },
  lookup: { $ref: `${S}/catalog_lookup.json#/$defs/lookup_response` },
  product: { $ref: `${S}/catalog_lookup.json#/$defs/get_product_response` },
  business_profile: { $ref: `${PROFILE_ID}#/$defs/business_profile` },
} as const;
const compiled = new Map(Object.entries(KINDS).map(([k, s]) => [k, ajv.compile(s)]));

export type UcpKind = keyof typeof KINDS;

/** Fails the test, naming the first violations, unless `body` is a valid UCP `kind`. */
export function expectUcp(kind: UcpKind, body: unknown) {
  const v = compiled.get(kind)!;
  const ok = v(body);
  if (!ok) expect({ kind, errors: v.errors?.slice(0, 5), body }).toBeUndefined();
  return body as any;
}
