/**
 * RFC 9421 HTTP Message Signatures as UCP's signatures.md profiles them, over WebCrypto:
 * - ECDSA P-256/SHA-256 (`ES256`, which every verifier must accept) and P-384/SHA-384 (optional);
 *   the algorithm comes from the JWK's `crv`, never from `Signature-Input` (the spec leaves `alg`
 *   out; one that is there must agree with the key);
 * - signatures are the raw fixed-width `r||s` (IEEE P1363), which is what WebCrypto produces and
 *   expects, so no DER conversion is needed either way;
 * - `Content-Digest: sha-256=:<base64>:` (RFC 9530) over the raw body bytes, no canonicalization.
 *
 * Replay protection is the business layer's (idempotency), so `created` is written but not required.
 */
import { ucpFail } from './errors';

export interface Jwk {
  kid: string;
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  use?: string;
  alg?: string;
}

const CURVES: Record<string, { hash: 'SHA-256' | 'SHA-384'; alg: string; bytes: number }> = {
  'P-256': { hash: 'SHA-256', alg: 'ecdsa-p256-sha256', bytes: 64 },
  'P-384': { hash: 'SHA-384', alg: 'ecdsa-p384-sha384', bytes: 96 },
};

const enc = new TextEncoder();
const b64 = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('base64');

/** `sha-256=:<base64>:` of the raw body bytes (RFC 9530). */
export async function contentDigest(body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === 'string' ? enc.encode(body) : new Uint8Array(body);
  return `sha-256=:${b64(await crypto.subtle.digest('SHA-256', bytes))}:`;
}

/** A message to sign or verify: a request (method, url) or a response (status). */
export interface Message {
  method?: string;
  url?: string;
  status?: number;
  headers: Headers;
}

/** One parsed member of `Signature-Input`: its label, components, parameters and raw text. */
export interface SignatureInput {
  label: string;
  components: string[];
  params: Record<string, string | number>;
  /** The member's value exactly as received: the `@signature-params` line of the base. */
  raw: string;
}

/**
 * Parses the RFC 8941 dictionary of `Signature-Input` for the forms RFC 9421 uses:
 * `label=("comp" "comp");param=value;param="text"`. Anything else is a signature_invalid.
 */
export function parseSignatureInput(header: string): SignatureInput[] {
  const out: SignatureInput[] = [];
  const re = /\s*([a-z*][a-z0-9_\-.*]*)=(\(([^)]*)\)((?:;[a-z*][a-z0-9_\-.*]*=(?:"[^"\\]*"|-?\d+|[A-Za-z*][^;,\s]*))*))\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while (consumed < header.length && (m = re.exec(header))) {
    consumed = re.lastIndex;
    const items = m[3].trim() ? m[3].trim().split(/\s+/) : [];
    const components = items.map((c) => {
      if (!/^"[^"\\]+"$/.test(c)) throw ucpFail('signature_invalid', `Signature-Input component ${c} is not a quoted string.`);
      return c.slice(1, -1).toLowerCase();
    });
    const params: Record<string, string | number> = {};
    for (const p of m[4].split(';').slice(1)) {
      const i = p.indexOf('=');
      const v = p.slice(i + 1);
      params[p.slice(0, i)] = v.startsWith('"') ? v.slice(1, -1) : /^-?\d+$/.test(v) ? Number(v) : v;
    }
    out.push({ label: m[1], components, params, raw: m[2] });
  }
  if (!out.length || consumed < header.trim().length) throw ucpFail('signature_invalid', 'Signature-Input is not an RFC 9421 signature input.');
  return out;
}

/** The `:<base64>:` byte sequence of one label in `Signature`. */
export function signatureBytes(header: string, label: string): Uint8Array<ArrayBuffer> {
  for (const part of header.split(',')) {
    const [k, ...rest] = part.trim().split('=');
    const v = rest.join('=');
    if (k === label && /^:[A-Za-z0-9+/]*={0,2}:$/.test(v)) return new Uint8Array(Buffer.from(v.slice(1, -1), 'base64'));
  }
  throw ucpFail('signature_invalid', `Signature has no byte sequence for ${label}.`);
}

/** The value of one derived or header component (RFC 9421 section 2). */
function componentValue(msg: Message, name: string): string {
  const url = msg.url ? new URL(msg.url) : undefined;
  switch (name) {
    case '@method':
      return (msg.method ?? '').toUpperCase();
    case '@authority':
      return (url?.host ?? '').toLowerCase();
    case '@path':
      return url?.pathname || '/';
    case '@query':
      return url?.search || '?';
    case '@target-uri':
      return url?.href ?? '';
    case '@scheme':
      return (url?.protocol ?? '').replace(':', '');
    case '@request-target':
      return `${url?.pathname ?? ''}${url?.search ?? ''}`;
    case '@status':
      if (msg.status === undefined) break;
      return String(msg.status);
    default: {
      if (name.startsWith('@')) break;
      const v = msg.headers.get(name);
      if (v === null) throw ucpFail('signature_invalid', `The signed header ${name} is not in the message.`);
      return v.trim().replace(/\s*\r?\n\s*/g, ' ');
    }
  }
  throw ucpFail('signature_invalid', `The component ${name} cannot be signed on this message.`);
}

/** The RFC 9421 signature base: one line per component, then `@signature-params`. */
export function signatureBase(msg: Message, components: string[], paramsRaw: string): string {
  const lines = components.map((c) => `"${c}": ${componentValue(msg, c)}`);
  lines.push(`"@signature-params": ${paramsRaw}`);
  return lines.join('\n');
}

function curveOf(jwk: Jwk) {
  const curve = jwk.kty === 'EC' && jwk.crv ? CURVES[jwk.crv] : undefined;
  if (!curve)
    throw ucpFail('algorithm_unsupported', `Key ${jwk.kid} is ${jwk.kty}${jwk.crv ? ` ${jwk.crv}` : ''}; UCP signatures are ECDSA P-256 (or P-384).`);
  return curve;
}

async function importKey(jwk: Jwk, use: 'sign' | 'verify'): Promise<CryptoKey> {
  const { kid: _kid, use: _use, alg: _alg, ...material } = jwk;
  return crypto.subtle.importKey('jwk', { ...material, ext: true } as JsonWebKey, { name: 'ECDSA', namedCurve: jwk.crv! }, false, [use]);
}

/** The serialized `("c1" "c2");created=..;keyid=".."` of a signature about to be made. */
function serializeParams(components: string[], params: { created?: number; keyid: string }) {
  return `(${components.map((c) => `"${c}"`).join(' ')})${params.created !== undefined ? `;created=${params.created}` : ''};keyid="${params.keyid}"`;
}

/**
 * Signs a message, adding `Content-Digest` (when `body` is given), `Signature-Input` and
 * `Signature` (label `sig1`) to its headers. Requests sign @method @authority @path [@query]
 * [ucp-agent] [idempotency-key] [content-digest content-type]; responses @status [content-digest content-type].
 */
export async function signMessage(msg: Message, body: string | Uint8Array | undefined, key: Jwk, created?: number): Promise<Headers> {
  const curve = curveOf(key);
  const headers = msg.headers;
  const hasBody = body !== undefined && (typeof body === 'string' ? body.length > 0 : body.byteLength > 0);
  if (hasBody) headers.set('content-digest', await contentDigest(body!));
  const components: string[] = [];
  if (msg.status !== undefined) components.push('@status');
  else {
    components.push('@method', '@authority', '@path');
    if (msg.url && new URL(msg.url).search) components.push('@query');
    if (headers.has('ucp-agent')) components.push('ucp-agent');
    if (headers.has('idempotency-key')) components.push('idempotency-key');
  }
  if (hasBody) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    components.push('content-digest', 'content-type');
  }
  const params = serializeParams(components, { created, keyid: key.kid });
  const base = signatureBase(msg, components, params);
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: curve.hash }, await importKey(key, 'sign'), enc.encode(base));
  headers.set('signature-input', `sig1=${params}`);
  headers.set('signature', `sig1=:${b64(sig)}:`);
  return headers;
}

/** What a verifier needs from the caller: the body bytes and a way to find a key by its id. */
export interface VerifyInput {
  message: Message;
  body: Uint8Array;
  /** The signer's keys (its profile's `signing_keys`); key_not_found when the keyid is not among them. */
  keys: (keyid: string) => Promise<Jwk | undefined>;
  /** Components the signature must cover (signatures.md's required list for this message). */
  required?: string[];
}

/**
 * Verifies the message's signature (the first label of `Signature-Input`), answering its keyid.
 * Throws a UcpError with the spec's code: signature_missing, signature_invalid, key_not_found,
 * digest_mismatch or algorithm_unsupported.
 */
export async function verifyMessage(v: VerifyInput): Promise<{ keyid: string; components: string[] }> {
  const h = v.message.headers;
  const inputHeader = h.get('signature-input');
  const sigHeader = h.get('signature');
  if (!inputHeader || !sigHeader) throw ucpFail('signature_missing', 'The request carries no Signature-Input and Signature headers.');
  const [input] = parseSignatureInput(inputHeader);
  const keyid = input.params.keyid;
  if (typeof keyid !== 'string' || !keyid) throw ucpFail('signature_invalid', 'Signature-Input names no keyid.');
  for (const c of v.required ?? []) {
    if (!input.components.includes(c)) throw ucpFail('signature_invalid', `The signature must cover ${c}.`);
  }
  if (v.body.byteLength > 0 && !input.components.includes('content-digest')) {
    throw ucpFail('signature_invalid', 'A message with a body must sign content-digest.');
  }
  const key = await v.keys(keyid);
  if (!key) throw ucpFail('key_not_found', `No key kid=${keyid} in the signer's signing_keys.`);
  const curve = curveOf(key);
  if (input.params.alg !== undefined && input.params.alg !== curve.alg) {
    throw ucpFail('algorithm_unsupported', `alg ${input.params.alg} does not match key kid=${keyid} (${key.crv}).`);
  }
  if (input.components.includes('content-digest')) {
    const expected = await contentDigest(v.body);
    const sent = (h.get('content-digest') ?? '').split(',').map((s) => s.trim());
    const sha = sent.find((s) => s.startsWith('sha-256='));
    if (sha !== expected) throw ucpFail('digest_mismatch', 'Content-Digest does not match the body (sha-256 over the raw bytes).');
  }
  const sig = signatureBytes(sigHeader, input.label);
  const base = signatureBase(v.message, input.components, input.raw);
  let ok = false;
  if (sig.byteLength === curve.bytes) {
    try {
      ok = await crypto.subtle.verify({ name: 'ECDSA', hash: curve.hash }, await importKey(key, 'verify'), sig, enc.encode(base));
    } catch {
      ok = false;
    }
  }
  if (!ok) throw ucpFail('signature_invalid', `Signature verification failed for key kid=${keyid}.`);
  return { keyid, components: input.components };
}

/** A new P-256 key pair as JWKs (private with `d`), for svc's store keys and the tests' fake agent. */
export async function generateSigningKey(kid: string): Promise<{ privateJwk: Jwk; publicJwk: Jwk }> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const priv = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  const publicJwk: Jwk = { kid, kty: 'EC', crv: 'P-256', x: priv.x!, y: priv.y!, use: 'sig', alg: 'ES256' };
  return { publicJwk, privateJwk: { ...publicJwk, d: priv.d! } };
}
