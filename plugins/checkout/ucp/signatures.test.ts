import { expect, test } from 'bun:test';
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { UcpError } from './errors';
import { contentDigest, generateSigningKey, parseSignatureInput, signMessage, verifyMessage, type Jwk } from './signatures';

const body = '{"checkout":{"line_items":[{"item":{"id":"p1"},"quantity":2}]}}';
const url = 'https://shop.example.com/ucp/v1/checkout-sessions';

async function signed(key: Jwk, over: Partial<{ url: string; body: string }> = {}) {
  const headers = new Headers({
    'content-type': 'application/json',
    'ucp-agent': 'profile="https://agent.example/profile.json"',
    'idempotency-key': '550e8400-e29b-41d4-a716-446655440000',
  });
  await signMessage({ method: 'POST', url: over.url ?? url, headers }, over.body ?? body, key);
  return headers;
}

const expectCode = async (p: Promise<unknown>, code: UcpError['code']) => {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(UcpError);
  expect((err as UcpError).code).toBe(code);
};

test('Content-Digest is the RFC 9530 sha-256 of the raw bytes', async () => {
  // The RFC 9530 example: {"hello": "world"}\n
  expect(await contentDigest('{"hello": "world"}\n')).toBe('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:');
});

test('a signed request verifies, covering the components signatures.md requires', async () => {
  const { privateJwk, publicJwk } = await generateSigningKey('agent-1');
  const headers = await signed(privateJwk);
  expect(headers.get('signature-input')).toBe(
    'sig1=("@method" "@authority" "@path" "ucp-agent" "idempotency-key" "content-digest" "content-type");keyid="agent-1"',
  );
  expect(headers.get('signature')).toMatch(/^sig1=:[A-Za-z0-9+/]+={0,2}:$/);
  const out = await verifyMessage({
    message: { method: 'POST', url, headers },
    body: new TextEncoder().encode(body),
    keys: async (kid) => (kid === 'agent-1' ? publicJwk : undefined),
  });
  expect(out.keyid).toBe('agent-1');
});

test('an independent RFC 9421 signer (node:crypto, raw r||s) is accepted, and a DER signature is not', async () => {
  const { privateJwk, publicJwk } = await generateSigningKey('k');
  const digest = await contentDigest(body);
  const params = '("@method" "@authority" "@path" "content-digest" "content-type");created=1738617601;keyid="k"';
  const base = [
    '"@method": POST',
    '"@authority": shop.example.com',
    '"@path": /ucp/v1/checkout-sessions',
    `"content-digest": ${digest}`,
    '"content-type": application/json',
    `"@signature-params": ${params}`,
  ].join('\n');
  const key = createPrivateKey({ key: privateJwk as never, format: 'jwk' });
  const sig = (encoding: 'ieee-p1363' | 'der') => nodeSign('sha256', Buffer.from(base), { key, dsaEncoding: encoding }).toString('base64');
  const headers = (s: string) =>
    new Headers({ 'content-type': 'application/json', 'content-digest': digest, 'signature-input': `sig1=${params}`, signature: `sig1=:${s}:` });
  const keys = async () => publicJwk;
  const bytes = new TextEncoder().encode(body);
  await verifyMessage({ message: { method: 'POST', url, headers: headers(sig('ieee-p1363')) }, body: bytes, keys });
  await expectCode(verifyMessage({ message: { method: 'POST', url, headers: headers(sig('der')) }, body: bytes, keys }), 'signature_invalid');
});

test('svc signatures verify with node:crypto over the base it documents (responses sign @status)', async () => {
  const { privateJwk, publicJwk } = await generateSigningKey('svc-1');
  const headers = new Headers({ 'content-type': 'application/json' });
  await signMessage({ status: 200, headers }, body, privateJwk, 1738617601);
  const [input] = parseSignatureInput(headers.get('signature-input')!);
  expect(input.components).toEqual(['@status', 'content-digest', 'content-type']);
  const base = [
    '"@status": 200',
    `"content-digest": ${headers.get('content-digest')}`,
    '"content-type": application/json',
    `"@signature-params": ${input.raw}`,
  ].join('\n');
  const raw = Buffer.from(headers.get('signature')!.slice(6, -1), 'base64');
  const pub = createPublicKey({ key: publicJwk as never, format: 'jwk' });
  expect(nodeVerify('sha256', Buffer.from(base), { key: pub, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
});

test('verification failures answer the spec codes', async () => {
  const { privateJwk, publicJwk } = await generateSigningKey('agent-1');
  const other = await generateSigningKey('agent-1');
  const keys = async (kid: string) => (kid === 'agent-1' ? publicJwk : undefined);
  const bytes = new TextEncoder().encode(body);
  const verify = (headers: Headers, b = bytes, u = url) => verifyMessage({ message: { method: 'POST', url: u, headers }, body: b, keys });

  await expectCode(verify(new Headers()), 'signature_missing');
  // The body changed after signing: the digest no longer matches.
  await expectCode(verify(await signed(privateJwk), new TextEncoder().encode(body.replace('2', '3'))), 'digest_mismatch');
  // A digest recomputed for the new body: the signature covers the old digest.
  const h = await signed(privateJwk);
  h.set('content-digest', await contentDigest('{}'));
  await expectCode(verify(h, new TextEncoder().encode('{}')), 'signature_invalid');
  // Sent to another path or host than the one signed.
  await expectCode(verify(await signed(privateJwk), bytes, 'https://shop.example.com/ucp/v1/checkout-sessions/x/complete'), 'signature_invalid');
  await expectCode(verify(await signed(privateJwk), bytes, 'https://other.example.com/ucp/v1/checkout-sessions'), 'signature_invalid');
  // Signed by another key under the same kid; and a kid the profile does not publish.
  await expectCode(verify(await signed(other.privateJwk)), 'signature_invalid');
  await expectCode(verify(await signed({ ...privateJwk, kid: 'agent-2' })), 'key_not_found');
  // A key that is not EC P-256/P-384.
  const rsa = { kid: 'agent-1', kty: 'RSA', n: 'x', e: 'AQAB' };
  await expectCode(
    verifyMessage({ message: { method: 'POST', url, headers: await signed(privateJwk) }, body: bytes, keys: async () => rsa }),
    'algorithm_unsupported',
  );
  // Garbage in Signature-Input.
  const bad = await signed(privateJwk);
  bad.set('signature-input', 'sig1=nonsense');
  await expectCode(verify(bad), 'signature_invalid');
});

test('a request with a query signs @query', async () => {
  const { privateJwk, publicJwk } = await generateSigningKey('a');
  const headers = new Headers();
  const u = 'https://shop.example.com/ucp/v1/orders/o1?expand=all';
  await signMessage({ method: 'GET', url: u, headers }, undefined, privateJwk);
  expect(parseSignatureInput(headers.get('signature-input')!)[0].components).toEqual(['@method', '@authority', '@path', '@query']);
  await verifyMessage({ message: { method: 'GET', url: u, headers }, body: new Uint8Array(), keys: async () => publicJwk });
  await expectCode(
    verifyMessage({ message: { method: 'GET', url: u.replace('all', 'none'), headers }, body: new Uint8Array(), keys: async () => publicJwk }),
    'signature_invalid',
  );
});
