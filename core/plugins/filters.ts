import { Type } from '@sinclair/typebox';
import { errors } from '../errors';

/**
 * A time range filter of a list, Stripe's shape: `created[gte]=2026-04-01&created[lt]=2026-05-01`
 * over REST (core/http/rest.ts turns `name[key]` into an object), `{"created": {"gte": ...}}` over
 * MCP. Bounds are ISO 8601: a date (midnight UTC) or a date-time with `Z` or an offset. In a query
 * string an offset's `+` must be written `%2B` (a bare `+` means a space there).
 */
const BOUND = 'ISO 8601 date (2026-04-01, midnight UTC) or date-time with a zone (2026-04-01T12:00:00Z).';

export const DateRange = (description = 'Only items created in this range; any of gt, gte, lt, lte.') =>
  Type.Object(
    {
      gt: Type.Optional(Type.String({ maxLength: 40, description: `After this instant. ${BOUND}` })),
      gte: Type.Optional(Type.String({ maxLength: 40, description: `At or after this instant. ${BOUND}` })),
      lt: Type.Optional(Type.String({ maxLength: 40, description: `Before this instant. ${BOUND}` })),
      lte: Type.Optional(Type.String({ maxLength: 40, description: `At or before this instant. ${BOUND}` })),
    },
    { additionalProperties: false, minProperties: 1, description },
  );

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * One bound as a Date, or 400 naming `param`. Strict: 2026-02-30 or 24:00 are refused, not
 * rolled over into another day the caller did not mean.
 */
export function parseInstant(text: string, param: string): Date {
  const m = SHAPE.exec(text);
  const bad = () => errors.validation(`Invalid ${param}: must be an ${BOUND} In a query string write + as %2B.`, param);
  if (!m) throw bad();
  const [, y, mo, d, h = '0', mi = '0', s = '0', , oh = '0', om = '0'] = m;
  const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth) throw bad();
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59) throw bad();
  const date = new Date(m[4] === undefined ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(date.getTime())) throw bad();
  return date;
}

const OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * The listPage filters of a range over `column` (code, never input): `{ 'created_at >= $': Date }`,
 * nothing when the range is absent. Spread into `filters`. An empty range (gte after lte) is
 * allowed and lists nothing, as in Stripe.
 */
export function dateRangeFilters(column: string, range: Partial<Record<keyof typeof OPERATORS, string>> | undefined, param = 'created') {
  const out: Record<string, Date> = {};
  for (const [op, sql] of Object.entries(OPERATORS)) {
    const v = range?.[op as keyof typeof OPERATORS];
    if (v !== undefined) out[`${column} ${sql} $`] = parseInstant(v, `${param}.${op}`);
  }
  return out;
}

/** A `q` search as a case-insensitive LIKE pattern: the text anywhere, its own % _ and \ matching themselves. */
export const containing = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
