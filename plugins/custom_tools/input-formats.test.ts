/**
 * Issue 36: a custom tool's input schema is checked as its author wrote it, `format` included, and
 * Ajv's notices reach the structured log (one JSON object per line), not bare stderr.
 */
import { describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { create, expectError, jsB, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

const schema = {
  type: 'object',
  properties: { email: { type: 'string', format: 'email' }, when: { type: 'string', format: 'date-time' } },
  required: ['email'],
};

describe('formats in custom tool input schemas', () => {
  test('an invalid email or date-time is a 400 naming the field; valid ones run', async () => {
    const h = await setup();
    const tool = await create(h, '/tools', jsB('return input.email;', { parameters: schema }));
    const run = (parameters: object) => h.call('POST', `/tools/${tool.id}/test`, { parameters });
    expectError(await run({ email: 'not an email' }), 400, { code: 'validation_failed', param: 'email' });
    expectError(await run({ email: 'ann@example.com', when: 'next tuesday' }), 400, { code: 'validation_failed', param: 'when' });
    expect((await run({ email: 'ann@example.com', when: '2026-04-01T10:00:00Z' })).body).toMatchObject({ success: true, result: 'ann@example.com' });
  });

  test('a format Ajv does not know is accepted, and its notice is a structured log line', async () => {
    const h = await setup();
    const lines: string[] = [];
    const consoleCalls: unknown[][] = [];
    const saved = { write: process.stderr.write, warn: console.warn, log: console.log, error: console.error };
    process.stderr.write = ((chunk: any) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    console.warn = console.log = console.error = (...args: unknown[]) => void consoleCalls.push(args);
    try {
      const tool = await create(
        h,
        '/tools',
        jsB('return 1;', { parameters: { type: 'object', properties: { zip: { type: 'string', format: 'postcode-xx' } } } }),
      );
      expect((await h.call('POST', `/tools/${tool.id}/test`, { parameters: { zip: '12345' } })).body).toMatchObject({ success: true });
    } finally {
      Object.assign(process.stderr, { write: saved.write });
      Object.assign(console, { warn: saved.warn, log: saved.log, error: saved.error });
    }
    expect(consoleCalls).toEqual([]);
    const notice = lines.find((l) => l.includes('postcode-xx'));
    expect(notice).toBeDefined();
    expect(JSON.parse(notice!)).toMatchObject({ level: 'warn', component: 'custom_tool_schemas', msg: expect.stringContaining('unknown format') });
  });
});
