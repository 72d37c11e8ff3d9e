import { describe, expect, test } from 'bun:test';
import { createLogger } from './log';

/** Issue 36: a log call never throws, whatever its fields hold. */
describe('the logger', () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, log: createLogger({ sink: (l) => lines.push(l) }) };
  };

  test('a BigInt field is written as decimal text', () => {
    const { lines, log } = capture();
    log.info('counted', { rows: 12345678901234567890n });
    expect(JSON.parse(lines[0])).toMatchObject({ msg: 'counted', rows: '12345678901234567890' });
  });

  test('a circular value is written once and marked where it repeats', () => {
    const { lines, log } = capture();
    const a: any = { name: 'a' };
    a.self = a;
    const shared = { id: 1 };
    log.warn('loop', { a, pair: [shared, shared] });
    const line = JSON.parse(lines[0]);
    expect(line.a).toEqual({ name: 'a', self: '[Circular]' });
    // The same object twice side by side is not a cycle.
    expect(line.pair).toEqual([{ id: 1 }, { id: 1 }]);
  });

  test('a field whose toJSON throws, or a failing sink, does not reach the caller', () => {
    const { lines, log } = capture();
    log.error('bad', {
      x: {
        toJSON: () => {
          throw new Error('nope');
        },
      },
    });
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'error', msg: 'bad', log_error: 'nope' });
    const broken = createLogger({
      sink: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => broken.child({ a: 1n }).info('x')).not.toThrow();
  });
});
