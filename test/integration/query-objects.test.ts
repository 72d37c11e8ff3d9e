/**
 * Object filters in query strings (`metadata[key]=value`, `created[gte]=...`), and the shared
 * metadata and time-range rules plugins build them with (core/plugins/metadata.ts, filters.ts).
 */
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from '../../core/http/openapi';
import { action, definePlugin } from '../../core/plugins/contract';
import { dateRangeFilters, parseInstant } from '../../core/plugins/filters';
import { checkMetadata, mergeMetadata, metadataFilter } from '../../core/plugins/metadata';
import { createRegistry } from '../../core/plugins/registry';
import { Input } from '../../core/plugins/schema';
import { allPlugins, setup } from '../kit/setup';

/** Echoes its parsed input, so the test sees exactly what the REST parser built. */
const echo = definePlugin({
  name: 'query_echo',
  category: 'platform',
  description: 'Echoes a parsed query.',
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  actions: {
    echo_query: action({
      kind: 'read',
      description: 'Answers the input it was given.',
      input: Input({
        range: Type.Optional(
          Type.Object(
            { min: Type.Optional(Type.Integer()), open: Type.Optional(Type.Boolean()), label: Type.Optional(Type.String()) },
            { additionalProperties: false },
          ),
        ),
        tags: Type.Optional(Type.Record(Type.String(), Type.Integer())),
        plain: Type.Optional(Type.String()),
      }),
      output: Type.Object({ input: Type.Any() }),
      rest: { method: 'GET', path: '/query-echo' },
      handler: async (_ctx, input) => ({ input }),
    }),
  },
});

describe('name[key]=value in a query string', () => {
  test('becomes an object for object-typed fields, inner values coerced by the inner schema', async () => {
    const h = await setup({ extra: [echo] });
    const r = await h.call('GET', '/query-echo?range[min]=5&range[open]=true&range[label]=007&tags[a]=1&tags[b]=-2&plain=x');
    expect(r.status).toBe(200);
    expect(r.body.input).toEqual({ range: { min: 5, open: true, label: '007' }, tags: { a: 1, b: -2 }, plain: 'x' });
    // Percent-encoded brackets are the same thing.
    expect((await h.call('GET', '/query-echo?range%5Bmin%5D=3')).body.input).toEqual({ range: { min: 3 } });
  });

  test('a wrong inner value or unknown inner key is 400 naming the inner field', async () => {
    const h = await setup({ extra: [echo] });
    for (const [query, param] of [
      ['range[min]=2.5', 'range.min'],
      ['range[min]=ten', 'range.min'],
      ['range[max]=1', 'range.max'],
      ['tags[a]=x', 'tags.a'],
    ]) {
      const r = await h.call('GET', `/query-echo?${query}`);
      expect({ query, status: r.status, param: r.body.error?.param }).toEqual({ query, status: 400, param });
    }
  });

  test('brackets on a field that is not an object, or nested twice, stay literal keys: 400 unknown parameter', async () => {
    const h = await setup({ extra: [echo] });
    for (const [query, param] of [
      ['plain[x]=1', 'plain[x]'],
      ['range[min][deep]=1', 'range[min][deep]'],
      ['range[]=1', 'range[]'],
    ]) {
      const r = await h.call('GET', `/query-echo?${query}`);
      expect({ query, status: r.status, param: r.body.error?.param, message: r.body.error?.message }).toEqual({
        query,
        status: 400,
        param,
        message: `Received unknown parameter: ${param}.`,
      });
    }
  });

  test('OpenAPI documents object query parameters as deepObject', () => {
    const spec: any = buildOpenApi(createRegistry([...allPlugins, echo]));
    const params = spec.paths['/v1/stores/{storeId}/customers'].get.parameters;
    expect(params.find((p: any) => p.name === 'metadata')).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
    expect(params.find((p: any) => p.name === 'created')).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
    expect(params.find((p: any) => p.name === 'q').style).toBeUndefined();
  });
});

describe("metadata rules (Stripe's)", () => {
  test('keys of 1 to 40 characters of plain text, at most 50 keys; 400 naming the field', () => {
    expect(() => checkMetadata({ ['k'.repeat(40)]: 'v' })).not.toThrow();
    for (const bad of [
      { ['k'.repeat(41)]: 'v' },
      { '': 'v' },
      { 'a\u0000': 'v' },
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    ])
      expect(() => checkMetadata(bad, 'variants.0.metadata')).toThrow(
        expect.objectContaining({ code: 'validation_failed', param: 'variants.0.metadata' }),
      );
  });

  test('an update merges; "" or null removes; the merged result is held to 50 keys', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { b: '', c: '3', a: null })).toEqual({ c: '3' });
    expect(mergeMetadata(null, undefined)).toEqual({});
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(() => mergeMetadata(fifty, { extra: 'v' })).toThrow(expect.objectContaining({ param: 'metadata' }));
    expect(Object.keys(mergeMetadata(fifty, { extra: 'v', k0: '' })).length).toBe(50);
  });

  test('the list filter is a containment test, absent when not asked for', () => {
    expect(metadataFilter(undefined)).toEqual({});
    expect(metadataFilter({ tier: 'gold' })).toEqual({ 'metadata @> $::text::jsonb': '{"tier":"gold"}' });
    expect(() => metadataFilter({ ['k'.repeat(41)]: 'v' })).toThrow(expect.objectContaining({ param: 'metadata' }));
  });
});

describe('time ranges', () => {
  test('dates are midnight UTC; date-times need a zone; impossible dates are refused, leap days are not', () => {
    expect(parseInstant('2026-04-01', 'created.gte').toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(parseInstant('2026-04-01T10:00:00+02:00', 'x').toISOString()).toBe('2026-04-01T08:00:00.000Z');
    expect(parseInstant('2026-04-01T10:00Z', 'x').toISOString()).toBe('2026-04-01T10:00:00.000Z');
    expect(parseInstant('2028-02-29T23:59:59.999Z', 'x').toISOString()).toBe('2028-02-29T23:59:59.999Z');
    for (const bad of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-04-01T10:00:00', '2026-04-01T25:00Z', '2026-04-01T10:60Z', '1 April', ''])
      expect(() => parseInstant(bad, 'created.lt')).toThrow(expect.objectContaining({ code: 'validation_failed', param: 'created.lt' }));
  });

  test('each bound becomes one condition on the column', () => {
    expect(dateRangeFilters('created_at', undefined)).toEqual({});
    expect(dateRangeFilters('created_at', { gte: '2026-04-01', lt: '2026-05-01' })).toEqual({
      'created_at >= $': new Date('2026-04-01T00:00:00Z'),
      'created_at < $': new Date('2026-05-01T00:00:00Z'),
    });
    expect(() => dateRangeFilters('created_at', { gt: 'soon' }, 'placed')).toThrow(expect.objectContaining({ param: 'placed.gt' }));
  });
});
