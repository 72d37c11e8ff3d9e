import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { discover, register } from '../../test/kit/oauth';
import { addUser, formFields, PASSWORD, uniqueIp } from '../../test/kit/users';
import { basicCredentials } from './token';

/**
 * Issue 36: input the sign-in pages and the token endpoint did not expect answered 500. A cookie
 * another app on the host set, or a Basic header that does not decode, is ignored or refused.
 */
let h: Harness;
let owner: { id: string; email: string };
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  owner = await addUser(h, 'owner');
}, 120_000);

// One address of its own: sign-in throttling counts per address in the shared test database.
const ip = uniqueIp();
const page = (method: string, path: string, headers: Record<string, string>, form?: Record<string, string>) =>
  h.app.handle(
    new Request(`http://svc.test${path}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, 'x-forwarded-for': ip, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    }),
  );

describe('a cookie that does not decode', () => {
  test('the login page still answers, and sign-in works beside it', async () => {
    const stray = 'zoom=100%; other=%E0%A4%A';
    const login = await page('GET', '/auth/login', { cookie: stray });
    expect(login.status).toBe(200);
    const csrf = login.headers.getSetCookie().find((c) => c.startsWith('svc_csrf='))!;
    expect(csrf).toContain('HttpOnly');
    expect(csrf).toContain('SameSite=Lax');
    const pair = csrf.split(';')[0];
    const fields = formFields(await login.text(), '/auth/login');
    const signedIn = await page('POST', '/auth/login', { cookie: `${stray}; ${pair}` }, { ...fields, email: owner.email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('svc_session='))!
      .split(';')[0];
    // A page that reads the session, with the stray cookie on both sides of it.
    // (signed in, the device page asks for the code instead of redirecting to the login page)
    const device = await page('GET', '/auth/device', { cookie: `${stray}; ${session}; bad=%zz` });
    expect(device.status).toBe(200);
    expect(await device.text()).toContain('Enter the code');
  });
});

describe('Basic client credentials', () => {
  const token = (authorization: string) =>
    h.app.handle(
      new Request('http://svc.test/v1/auth/token', {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&refresh_token=x',
      }),
    );
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  test('malformed credentials are 401 invalid_client with a Basic challenge', async () => {
    for (const header of [`Basic ${b64('%zz:secret')}`, `Basic ${b64('no-colon')}`, 'Basic !!!not-base64', `Basic ${b64('id:%E0%A4%A')}`]) {
      const res = await token(header);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Basic');
      expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    }
  });

  test('a registered client authenticates with its id and secret form-encoded', async () => {
    const { as } = await discover(h);
    const client = await register(h, as, { token_endpoint_auth_method: 'client_secret_basic' });
    const enc = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
    // The right secret gets past client authentication (the refresh token is what is wrong) ...
    const right = await token(`Basic ${b64(`${enc(client.client_id)}:${enc(client.client_secret as string)}`)}`);
    expect(await right.json()).toMatchObject({ error: 'invalid_grant' });
    // ... and a secret with a colon in it is compared whole (split at the first colon only).
    const colon = await token(`Basic ${b64(`${enc(client.client_id)}:${client.client_secret}:extra`)}`);
    expect(colon.status).toBe(401);
  });

  test('decoding follows RFC 6749 2.3.1: form-encoded, split at the first colon', () => {
    expect(basicCredentials(b64('my+client:s%2Bcret+with+spaces'))).toEqual({ id: 'my client', secret: 's+cret with spaces' });
    expect(basicCredentials(b64('id:a:b'))).toEqual({ id: 'id', secret: 'a:b' });
    expect(basicCredentials(b64('%zz:secret'))).toBeUndefined();
    expect(basicCredentials(b64('nocolon'))).toBeUndefined();
  });
});
