import { errors } from '../errors';

/**
 * Date-based API versions (SPEC 9). Each entry may carry changes: how a response of the next
 * newer version is turned back into this version's shape (Stripe-style version changes).
 * Handlers always produce the latest shape; older versions are derived by walking back.
 */
export interface VersionChange {
  description: string;
  /** Rewrites one resource object of the newer shape into this version's shape. */
  downgrade: (resource: Record<string, any>) => Record<string, any>;
}

export interface ApiVersion {
  id: string; // vYYYY-MM-DD
  released: string; // YYYY-MM-DD
  summary: string;
  /** Changes that leave this version for the next newer one. */
  changesToNext: VersionChange[];
}

export const VERSIONS: ApiVersion[] = [
  {
    id: 'v2025-11-01',
    released: '2025-11-01',
    summary: 'initial public release: orders, products, customers, inventory',
    changesToNext: [
      {
        description: 'v2026-01-15 renamed the order field `number` to `order_number`.',
        downgrade: (r) => {
          if (r.object !== 'order' || !('order_number' in r)) return r;
          const { order_number, ...rest } = r;
          return { ...rest, number: order_number };
        },
      },
    ],
  },
  {
    id: 'v2026-01-15',
    released: '2026-01-15',
    summary: 'webhook delivery logs, inventory transfer endpoints, bulk product operations',
    changesToNext: [],
  },
  { id: 'v2026-03-07', released: '2026-03-07', summary: 'current stable; agent templates, custom tools, workflow automation', changesToNext: [] },
];

export const LATEST = VERSIONS[VERSIONS.length - 1];

const addMonths = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
};

export interface ResolvedVersion {
  version: ApiVersion;
  /** Deprecation headers to add to the response. */
  headers: Record<string, string>;
}

/**
 * Picks the version from the X-API-Version header (latest when absent) and applies the
 * deprecation calendar: the 6 months after the next version's release are months 1-3 with a
 * Sunset header, months 4-6 with a Deprecation-Warning header; after that 410.
 */
export function resolveVersion(header: string | null, now: Date): ResolvedVersion {
  if (header == null || header === '') return { version: LATEST, headers: {} };
  const id = header.startsWith('v') ? header : `v${header}`;
  if (!/^v\d{4}-\d{2}-\d{2}$/.test(id))
    throw errors.badRequest('invalid_api_version', `Malformed X-API-Version '${header}': expected vYYYY-MM-DD.`, 'X-API-Version');
  const index = VERSIONS.findIndex((v) => v.id === id);
  if (index < 0)
    throw errors.badRequest(
      'invalid_api_version',
      `Unknown API version '${header}'. Known versions: ${VERSIONS.map((v) => v.id).join(', ')}.`,
      'X-API-Version',
    );
  const version = VERSIONS[index];
  const next = VERSIONS[index + 1];
  if (!next) return { version, headers: {} };
  const sunset = addMonths(next.released, 6);
  if (now >= sunset) throw errors.gone(`API version ${id} was retired on ${sunset.toISOString().slice(0, 10)}. Use ${LATEST.id}.`);
  if (now < addMonths(next.released, 3)) return { version, headers: { Sunset: sunset.toUTCString() } };
  return {
    version,
    headers: {
      'Deprecation-Warning': `API version ${id} is deprecated and will be retired on ${sunset.toISOString().slice(0, 10)}; move to ${LATEST.id}.`,
    },
  };
}

/** Rewrites a latest-shape response body into the shape of `version`. */
export function downgradeBody(body: unknown, version: ApiVersion): unknown {
  if (version === LATEST) return body;
  const changes = VERSIONS.slice(VERSIONS.indexOf(version), VERSIONS.length - 1)
    .reverse()
    .flatMap((v) => v.changesToNext);
  if (!changes.length) return body;
  const apply = (r: any): any => {
    if (Array.isArray(r)) return r.map(apply);
    if (r && typeof r === 'object') {
      let out: any = {};
      for (const [k, v] of Object.entries(r)) out[k] = apply(v);
      for (const c of changes) out = c.downgrade(out);
      return out;
    }
    return r;
  };
  return apply(body);
}

/**
 * The 404 for a route a request's version predates (RestMapping.since): the endpoint was not part
 * of that snapshot. Undefined when the route exists in `version`.
 */
export function notYetInVersion(since: string | undefined, version: ApiVersion, route: string) {
  if (!since || VERSIONS.indexOf(version) >= VERSIONS.findIndex((v) => v.id === since)) return undefined;
  return errors.notFound(
    `endpoint ${route} in API version ${version.id}: it was added in ${since}. Send X-API-Version: ${since} or later (or leave the header out for ${LATEST.id})`,
    'X-API-Version',
  );
}
