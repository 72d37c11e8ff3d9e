/**
 * Tool secrets at rest: AES-256-GCM with one server key, plus the redaction helpers that keep
 * secret values out of responses, logs, errors and audit records.
 *
 * Key source (README, Configuration):
 * - SVC_SECRET_KEY: 32 bytes, base64 or hex. Required on PostgreSQL, since every node must
 *   decrypt what another node sealed and a per-node generated key would silently diverge.
 * - On the embedded database (DATABASE_URL unset) there is one node and one data directory,
 *   so a key is generated once into <dataDir>/secret.key and reused.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errors } from './errors';

const VERSION = 'v1';
const IV_BYTES = 12; // the GCM standard nonce size; random per seal (2^32 seals per key is far off)
const TAG_BYTES = 16;

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.byteLength !== 32) throw new Error('SecretBox needs a 32-byte key.');
    this.#key = Buffer.from(key);
  }

  /**
   * Encrypts to `v1:<b64 iv>:<b64 tag>:<b64 ciphertext>`. The version prefix lets a later key
   * or algorithm change coexist with stored values. `context` (optional, e.g. a tool id) is
   * authenticated but not stored: the same context must be given to open, so a sealed value
   * copied onto another row does not decrypt there.
   */
  seal(plaintext: string, context?: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
  }

  /**
   * HMAC-SHA256 of `data` under a key derived from this one for `purpose` (signed links), so a
   * signature made for one purpose is never valid for another and the sealing key is never used as
   * a MAC key.
   */
  mac(purpose: string, data: string): Buffer {
    const subkey = createHmac('sha256', this.#key).update(purpose).digest();
    return createHmac('sha256', subkey).update(data).digest();
  }

  /** Decrypts a seal() result; throws on any tampering, a wrong key or a wrong context. */
  open(sealed: string, context?: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('Sealed secret has an unknown format.');
    const [iv, tag, ct] = parts.slice(1).map((p) => Buffer.from(p, 'base64'));
    // An explicit tag length matters: GCM would otherwise accept a truncated (forgeable) tag.
    if (iv.byteLength !== IV_BYTES || tag.byteLength !== TAG_BYTES) throw new Error('Sealed secret has an unknown format.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
    } catch {
      // No detail from crypto: the only causes are a different key or altered data.
      throw new Error('Sealed secret could not be decrypted: it was altered or sealed with another SVC_SECRET_KEY.');
    }
  }
}

const KEY_FORMAT = '32 bytes encoded as base64 (44 characters) or hex (64 characters), e.g. from `openssl rand -base64 32`';

/** Parses a 32-byte key in hex or (standard or URL-safe) base64; null if it is neither. */
function parseKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  // Buffer's base64 decoder skips invalid characters, so check the alphabet and length first.
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.byteLength === 32) return b;
  }
  return null;
}

/** Reads <dataDir>/secret.key, creating it once (0600) if missing. */
function fileKey(dataDir: string): Buffer {
  const path = join(dataDir, 'secret.key');
  const read = (): Buffer => {
    const k = parseKey(readFileSync(path, 'utf8'));
    // The file's content is never echoed: it is the key.
    if (!k) throw new Error(`${path} does not hold a valid key (${KEY_FORMAT}); restore it or set SVC_SECRET_KEY.`);
    return k;
  };
  try {
    return read();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Write a complete temp file, then link it into place: link fails if the name exists, so two
  // processes starting at once both end up with the first one's key (rename would let the second
  // overwrite a key the first may already have sealed with), and no reader sees a half-written file.
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600); // in case the umask or filesystem widened it
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  return read();
}

/**
 * The box for an environment: SVC_SECRET_KEY if set, else the generated key file on the
 * embedded database, else (PostgreSQL without a key) a 400 provider_not_configured naming it.
 */
export function loadSecretBox(env: Record<string, string | undefined>, dataDir: string): SecretBox {
  const raw = env.SVC_SECRET_KEY?.trim();
  if (raw) {
    const key = parseKey(raw);
    // Never echo the value: a near-miss key is still mostly the real key.
    if (!key) throw new Error(`Invalid SVC_SECRET_KEY: expected ${KEY_FORMAT}.`);
    return new SecretBox(key);
  }
  // Same "empty means unset" rule as core/config.ts.
  if (env.DATABASE_URL) {
    throw errors.notConfigured('SVC_SECRET_KEY', 'secrets are sealed with it on PostgreSQL (32 bytes, base64 or hex, the same on every node)');
  }
  return new SecretBox(fileKey(dataDir));
}

let cached: SecretBox | null = null;

/**
 * The process-wide box, created on first use so that a server without tool secrets never
 * needs a key. A failure is not cached: setting the key and retrying works without a restart.
 */
export function secretBox(): SecretBox {
  cached ??= loadSecretBox(process.env, resolve(process.env.SVC_DATA_DIR ?? './data'));
  return cached;
}

/** Tests only: forget the cached box. */
export function resetSecretBox(): void {
  cached = null;
}

// WHATWG URL percent-encode sets: what a URL parser escapes in a path and in the query of an
// http(s) URL (everything else, `/`, `+`, `%` and `'` in a path included, stays as it was).
const PATH_SET = /[\x00-\x20"#<>?`{}\x7f-\u{10ffff}]/u;
const QUERY_SET = /[\x00-\x20"#<>'\x7f-\u{10ffff}]/u;
const utf8 = new TextEncoder();

/** `s` percent-encoded the way a URL parser does it for one component (upper-case hex). */
function urlEncoded(s: string, set: RegExp): string {
  let out = '';
  for (const ch of s) out += set.test(ch) ? Array.from(utf8.encode(ch), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('') : ch;
  return out;
}

/**
 * The strings to hide for these secret values: each value plus the forms it takes when it
 * passes through a URL or a JSON text (an endpoint echoing a header or its request URL, an error
 * quoting a body). A secret filled into a tool URL reaches the endpoint as the URL parser encoded
 * it, which is not encodeURIComponent's form (`it's a/b` becomes `it's%20a/b` in a path and
 * `it%27s%20a/b` in a query).
 */
function needles(secrets: string[]): string[] {
  const out = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    out.add(s);
    out.add(encodeURIComponent(s));
    out.add(urlEncoded(s, PATH_SET));
    out.add(urlEncoded(s, QUERY_SET));
    out.add(new URLSearchParams({ v: s }).toString().slice(2));
    out.add(JSON.stringify(s).slice(1, -1));
  }
  // Longest first, so a secret containing another is hidden whole.
  return [...out].sort((a, b) => b.length - a.length);
}

function replaceAll(text: string, list: string[]): string {
  let out = text;
  for (const n of list) out = out.split(n).join('[redacted]');
  return out;
}

/** Replaces every occurrence of each secret value with [redacted]. */
export function redact(text: string, secrets: string[]): string {
  return replaceAll(text, needles(secrets));
}

/** redact() over a JSON value: every string, including object keys. */
export function redactDeep(value: unknown, secrets: string[]): unknown {
  const list = needles(secrets);
  if (list.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return replaceAll(v, list);
    if (Array.isArray(v)) return v.map(walk);
    // fromEntries defines own properties, so a "__proto__" key stays data, not a prototype.
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [replaceAll(k, list), walk(x)]));
    return v;
  };
  return walk(value);
}
