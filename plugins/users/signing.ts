import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { type Clock, type Db } from '../../core/sdk';
import { secretBox } from '../../core/sdk';

const ALG = 'ES256';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicKey: CryptoKey;
}

/**
 * The keys that sign users' access tokens. One is made on first use; its private half is sealed
 * with SVC_SECRET_KEY (secretBox) so the database alone cannot mint tokens. Every process of a
 * cluster signs with the oldest key, so two processes starting at once agree.
 */
const cache = new WeakMap<Db, Promise<SigningKey[]>>();

async function loadKeys(db: Db): Promise<SigningKey[]> {
  const rows = await db.query('SELECT kid, private_sealed, public_jwk FROM token_signing_keys ORDER BY created_at, kid');
  return Promise.all(
    rows.map(async (r: any) => {
      const publicJwk = typeof r.public_jwk === 'string' ? JSON.parse(r.public_jwk) : r.public_jwk;
      return {
        kid: r.kid,
        privateKey: (await importJWK(JSON.parse(secretBox().open(r.private_sealed, `jwt:${r.kid}`)), ALG)) as CryptoKey,
        publicJwk,
        publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey,
      };
    }),
  );
}

async function ensureKeys(db: Db, clock: Clock): Promise<SigningKey[]> {
  const have = await loadKeys(db);
  if (have.length) return have;
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = crypto.randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  await db.query(`INSERT INTO token_signing_keys (kid, alg, private_sealed, public_jwk, created_at) VALUES ($1, $2, $3, $4::text::jsonb, $5)`, [
    kid,
    ALG,
    secretBox().seal(JSON.stringify(await exportJWK(privateKey)), `jwt:${kid}`),
    JSON.stringify(publicJwk),
    clock.now(),
  ]);
  return loadKeys(db);
}

export function signingKeys(db: Db, clock: Clock): Promise<SigningKey[]> {
  let p = cache.get(db);
  if (!p) {
    p = ensureKeys(db, clock);
    // A failure (no SVC_SECRET_KEY yet) is not kept: the next request tries again.
    p.catch(() => cache.delete(db));
    cache.set(db, p);
  }
  return p;
}

/** RFC 7517 key set for /.well-known/jwks.json. */
export async function jwks(db: Db, clock: Clock) {
  return { keys: (await signingKeys(db, clock)).map((k) => k.publicJwk) };
}

export async function signToken(db: Db, clock: Clock, claims: JWTPayload, ttlSeconds: number): Promise<string> {
  const [key] = await signingKeys(db, clock);
  const now = Math.floor(clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'at+jwt' })
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
}

/** Verifies signature, issuer and expiry (by our clock); throws on anything wrong. */
export async function verifyToken(db: Db, clock: Clock, token: string, issuer: string | undefined): Promise<JWTPayload> {
  const keys = await signingKeys(db, clock);
  const { payload } = await jwtVerify(
    token,
    async (header) => {
      const k = keys.find((x) => x.kid === header.kid);
      if (!k) throw new Error('unknown kid');
      return k.publicKey;
    },
    { algorithms: [ALG], currentDate: clock.now(), ...(issuer ? { issuer } : {}), typ: 'at+jwt' },
  );
  return payload;
}
