import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SvcError } from './errors';
import { SecretBox, loadSecretBox, redact, redactDeep, resetSecretBox, secretBox } from './secrets';

const tmp = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const key = randomBytes(32);
const box = new SecretBox(key);

describe('SecretBox', () => {
  test('seal/open round trip with a fresh IV each time', () => {
    const a = box.seal('s3cr3t ünïcode');
    expect(a).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/);
    expect(a).not.toContain('s3cr3t');
    expect(box.open(a)).toBe('s3cr3t ünïcode');
    expect(box.seal('s3cr3t ünïcode')).not.toBe(a);
    expect(box.open(box.seal(''))).toBe('');
  });

  test('tampering, a truncated tag, another key or another context is refused', () => {
    const sealed = box.seal('{"API_TOKEN":"abc"}');
    const [v, iv, tag, ct] = sealed.split(':');
    const flip = (b64: string) => {
      const b = Buffer.from(b64, 'base64');
      b[0] ^= 1;
      return b.toString('base64');
    };
    expect(() => box.open([v, iv, tag, flip(ct)].join(':'))).toThrow(/altered/);
    expect(() => box.open([v, flip(iv), tag, ct].join(':'))).toThrow(/altered/);
    expect(() => box.open([v, iv, flip(tag), ct].join(':'))).toThrow(/altered/);
    expect(() => box.open([v, iv, Buffer.from(tag, 'base64').subarray(0, 4).toString('base64'), ct].join(':'))).toThrow(/format/);
    expect(() => box.open(['v2', iv, tag, ct].join(':'))).toThrow(/format/);
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow(/SVC_SECRET_KEY/);
    const bound = box.seal('x', 'tool-1');
    expect(box.open(bound, 'tool-1')).toBe('x');
    expect(() => box.open(bound, 'tool-2')).toThrow();
    expect(() => box.open(bound)).toThrow();
  });
});

describe('loadSecretBox', () => {
  const sealed = box.seal('hello');

  test('SVC_SECRET_KEY in base64 (standard or URL-safe) or hex', () => {
    for (const text of [
      key.toString('base64'),
      key.toString('base64url'),
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      ` ${key.toString('base64')}\n`,
    ]) {
      expect(loadSecretBox({ SVC_SECRET_KEY: text }, join(tmp, 'unused')).open(sealed)).toBe('hello');
    }
  });

  test('a bad key names SVC_SECRET_KEY and the format, never the value', () => {
    for (const bad of ['not-a-key-at-all-but-secretish', randomBytes(16).toString('base64'), 'z'.repeat(64), randomBytes(33).toString('hex')]) {
      let err: Error | undefined;
      try {
        loadSecretBox({ SVC_SECRET_KEY: bad }, join(tmp, 'unused'));
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).toContain('SVC_SECRET_KEY');
      expect(err?.message).toMatch(/base64.*hex/);
      expect(err?.message).not.toContain(bad);
    }
  });

  test('embedded database: a key file is generated with mode 0600 and reused', () => {
    const dir = join(tmp, 'data', 'nested');
    const first = loadSecretBox({}, dir);
    const file = join(dir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const onDisk = readFileSync(file, 'utf8');
    const s = first.seal('kept');
    expect(loadSecretBox({ DATABASE_URL: '' }, dir).open(s)).toBe('kept');
    expect(readFileSync(file, 'utf8')).toBe(onDisk);
    // The file holds the same text SVC_SECRET_KEY takes, for moving to PostgreSQL later.
    expect(loadSecretBox({ SVC_SECRET_KEY: onDisk }, join(tmp, 'unused')).open(s)).toBe('kept');
  });

  test('a corrupt key file is an error that does not quote it', () => {
    const dir = join(tmp, 'corrupt');
    loadSecretBox({}, dir);
    writeFileSync(join(dir, 'secret.key'), 'garbage-key-material');
    expect(() => loadSecretBox({}, dir)).toThrow(/does not hold a valid key/);
    try {
      loadSecretBox({}, dir);
    } catch (e) {
      expect((e as Error).message).not.toContain('garbage-key-material');
    }
  });

  test('PostgreSQL without SVC_SECRET_KEY: a clear 400 naming the setting (a retry cannot heal it)', () => {
    let err: unknown;
    try {
      loadSecretBox({ DATABASE_URL: 'postgres://localhost/svc' }, join(tmp, 'pg'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SvcError);
    const e = err as SvcError;
    expect([e.status, e.type, e.code]).toEqual([400, 'invalid_request_error', 'provider_not_configured']);
    expect(e.message).toContain('SVC_SECRET_KEY is not set on this server');
    // No key file was generated as a fallback.
    expect(() => statSync(join(tmp, 'pg'))).toThrow();
  });
});

test('secretBox(): a failure is not cached, a success is', () => {
  const saved = { key: process.env.SVC_SECRET_KEY, db: process.env.DATABASE_URL };
  try {
    resetSecretBox();
    process.env.SVC_SECRET_KEY = 'bad';
    expect(() => secretBox()).toThrow(/SVC_SECRET_KEY/);
    process.env.SVC_SECRET_KEY = key.toString('hex');
    const b = secretBox();
    expect(b.open(box.seal('ok'))).toBe('ok');
    expect(secretBox()).toBe(b);
  } finally {
    for (const [name, v] of [
      ['SVC_SECRET_KEY', saved.key],
      ['DATABASE_URL', saved.db],
    ] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
    resetSecretBox();
  }
});

describe('redact', () => {
  test('every occurrence, longest first, URL and JSON forms too', () => {
    expect(redact('a tok tok tokLONG b', ['tok', 'tokLONG', ''])).toBe('a [redacted] [redacted] [redacted] b');
    expect(redact('q=a%2Fb%20c and "x\\"y"', ['a/b c', 'x"y'])).toBe('q=[redacted] and "[redacted]"');
    expect(redact('nothing here', [])).toBe('nothing here');
  });

  test('redactDeep covers nested strings and keys, keeps other values', () => {
    const v = JSON.parse('{"h":{"authorization":"Bearer SEC"},"list":["SEC",1,null,true],"SEC":2,"__proto__":"SEC"}');
    const out = redactDeep(v, ['SEC']) as Record<string, unknown>;
    expect(JSON.stringify(out)).not.toContain('SEC');
    expect(out).toEqual(
      JSON.parse('{"h":{"authorization":"Bearer [redacted]"},"list":["[redacted]",1,null,true],"[redacted]":2,"__proto__":"[redacted]"}'),
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
