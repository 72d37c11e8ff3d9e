import { errors, parseInstant, toMinor } from '../../core/sdk';
import { customerFigureSql, type CustomerFigure } from '../orders/public';
import type { RulesT } from './schemas';

/**
 * A segment's rules as one SQL condition over customers aliased `c`, every value a placeholder
 * (never string-built: field and operator choose among fixed fragments, a metadata key is a
 * parameter too). Checked when a segment is made, and compiled again on each read.
 */
type Kind = 'text' | 'tags' | 'bool' | 'date' | 'money' | 'count';
const FIELDS: Record<string, Kind> = {
  email: 'text',
  first_name: 'text',
  last_name: 'text',
  tags: 'tags',
  accepts_marketing: 'bool',
  created_at: 'date',
  total_spent: 'money',
  orders_count: 'count',
  average_order_value: 'money',
  last_order_at: 'date',
};
const ORDER_FIELDS = new Set(['total_spent', 'orders_count', 'average_order_value', 'last_order_at']);
const ALLOWED: Record<Kind, string[]> = {
  text: ['eq', 'neq', 'contains', 'in', 'exists'],
  tags: ['contains', 'in', 'exists'],
  bool: ['eq', 'neq', 'exists'],
  date: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'exists'],
  money: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  count: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
};
const CMP: Record<string, string> = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };
const METADATA_KEY = /^metadata\.([A-Za-z0-9_.-]{1,40})$/;

export interface Compiled {
  sql: string;
  params: unknown[];
}

/** 400 naming the wrong part (`rules.conditions.1.field`) for a rule that cannot be evaluated. */
export function compile(rules: RulesT, o: { currency: string; now: Date; firstParam: number; store: string; currencyParam: string }): Compiled {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${o.firstParam + params.length - 1}`;
  };
  const parts = rules.conditions.map((c, i) => {
    const at = `rules.conditions.${i}`;
    const meta = METADATA_KEY.exec(c.field);
    const kind: Kind | undefined = meta ? 'text' : FIELDS[c.field];
    if (!kind)
      throw errors.validation(
        `Invalid ${at}.field: '${c.field}' is not a segment field (${Object.keys(FIELDS).join(', ')}, metadata.<key>).`,
        `${at}.field`,
      );
    if (!ALLOWED[kind].includes(c.operator))
      throw errors.validation(`Invalid ${at}.operator: ${c.field} takes ${ALLOWED[kind].join(', ')}.`, `${at}.operator`);
    if (c.within_days !== undefined && !ORDER_FIELDS.has(c.field))
      throw errors.validation(`Invalid ${at}.within_days: only order fields (${[...ORDER_FIELDS].join(', ')}) take it.`, `${at}.within_days`);
    const bad = (what: string) => errors.validation(`Invalid ${at}.value: ${what}.`, `${at}.value`);
    const one = (v: unknown): unknown => {
      switch (kind) {
        case 'text':
        case 'tags':
          if (typeof v !== 'string' || v.length > 500) throw bad('must be a string (at most 500 characters)');
          return v;
        case 'bool':
          if (typeof v !== 'boolean') throw bad('must be true or false');
          return v;
        case 'date':
          if (typeof v !== 'string') throw bad('must be an ISO 8601 date or date-time');
          return parseInstant(v, `${at}.value`);
        case 'count':
          if (!Number.isInteger(v) || (v as number) < 0) throw bad('must be a whole number, 0 or more');
          return v;
        case 'money':
          if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`must be an amount in ${o.currency}`);
          return toMinor(v, o.currency, `${at}.value`);
      }
    };
    let value: unknown;
    if (c.operator === 'exists') {
      if (typeof c.value !== 'boolean') throw bad('must be true or false for exists');
      value = c.value;
    } else if (c.operator === 'in') {
      if (!Array.isArray(c.value) || c.value.length < 1 || c.value.length > 100) throw bad('must be a list of 1 to 100 values for in');
      value = c.value.map(one);
    } else value = one(c.value);

    // The column, or the figure's subquery; only fixed fragments go in the text.
    let col: string;
    if (meta) col = `(c.metadata ->> ${p(meta[1])})`;
    else if (ORDER_FIELDS.has(c.field)) {
      const since = c.within_days ? p(new Date(o.now.getTime() - c.within_days * 86_400_000)) : null;
      col = customerFigureSql(c.field as CustomerFigure, { customerId: 'c.id', store: o.store, currency: o.currencyParam, since });
    } else col = `c.${c.field}`;

    if (c.operator === 'exists') {
      const has =
        kind === 'tags'
          ? `jsonb_array_length(c.tags) > 0`
          : kind === 'count' || kind === 'money'
            ? `${customerFigureSql('orders_count', { customerId: 'c.id', store: o.store, currency: o.currencyParam, since: null })} > 0`
            : `${col} IS NOT NULL`;
      return value ? `(${has})` : `(NOT (${has}))`;
    }
    if (kind === 'tags') {
      if (c.operator === 'contains') return `(c.tags @> jsonb_build_array(${p(value)}::text))`;
      return `(c.tags ?| ${p(value)}::text[])`;
    }
    if (kind === 'text') {
      const lower = `lower(${col})`;
      if (c.operator === 'contains')
        return `(${lower} LIKE ${p(
          `%${String(value)
            .toLowerCase()
            .replace(/[\\%_]/g, '\\$&')}%`,
        )})`;
      if (c.operator === 'in') return `(${lower} = ANY(${p((value as string[]).map((v) => v.toLowerCase()))}::text[]))`;
      // Text compares ignoring case (emails are stored as typed); neq keeps customers without the field.
      return c.operator === 'eq' ? `(${lower} = lower(${p(value)}))` : `(${lower} IS DISTINCT FROM lower(${p(value)}))`;
    }
    if (c.operator === 'in') return `(${col} = ANY(${p(value)}::bigint[]))`;
    const cast = kind === 'date' ? '::timestamptz' : kind === 'bool' ? '::boolean' : '::bigint';
    return `(${col} ${CMP[c.operator]} ${p(value)}${cast})`;
  });
  return { sql: parts.join(rules.match === 'all' ? ' AND ' : ' OR '), params };
}
