import { beforeAll, describe, expect, test } from 'bun:test';
import * as oauth from 'oauth4webapi';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';
import { clientOptions, discover, register, tokenRequest } from '../../test/kit/oauth';
import { addUser, browser, formFields, uniqueIp } from '../../test/kit/users';
import { flushAudits } from '../../core/tools/executions';

/** Issue 11, "CLI and agent login": the device authorization grant (RFC 8628) and the tool svc_login. */
let h: Harness;
let user: { id: string; email: string };
// Signed in once, before any test moves this harness's clock: sign-in throttling rows are shared
// by every harness of the test database, and a sign-in at a later clock would hold the others up.
let human: ReturnType<typeof browser>;
beforeAll(async () => {
  h = await setup({ env: { SVC_PUBLIC_URL: 'http://svc.test', SVC_TRUST_PROXY: 'true' } });
  user = await addUser(h, 'owner');
  human = browser(h, { ip: uniqueIp() });
  expect((await human.signIn(user.email)).status).toBe(303);
}, 120_000);

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

/** The human: signs in, enters the code, answers for the test store. */
async function answer(userCode: string, decision: 'allow' | 'deny' = 'allow', opts: { csrf?: boolean } = {}) {
  const b = human;
  const page = await b.get(`/auth/device?user_code=${encodeURIComponent(userCode)}`);
  expect(page.status).toBe(200);
  const fields = formFields(page.text, '/auth/device');
  if (opts.csrf === false) delete fields.csrf_token;
  return b.post('/auth/device', { ...fields, store_id: h.store.id, decision });
}

describe('the device authorization grant over HTTP (an independent client)', () => {
  test('pending, slow_down, approval, tokens once; the page asks for sign-in first', async () => {
    const { as } = await discover(h);
    expect(as.device_authorization_endpoint).toBe('http://svc.test/auth/device_authorization');
    const client = await register(h, as, { grant_types: ['authorization_code', 'refresh_token', DEVICE] });
    const started = await oauth.processDeviceAuthorizationResponse(
      as,
      client,
      await oauth.deviceAuthorizationRequest(as, client, oauth.None(), new URLSearchParams({ scope: 'products:read' }), clientOptions(h)),
    );
    expect(started.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(started.verification_uri).toBe('http://svc.test/auth/device');
    const poll = () => tokenRequest(h, { grant_type: DEVICE, device_code: started.device_code, client_id: client.client_id });
    expect((await poll()).body.error).toBe('authorization_pending');
    expect((await poll()).body.error).toBe('slow_down');
    // Not signed in: the page sends the human to sign in, and back.
    const anon = await browser(h, { ip: uniqueIp() }).get(`/auth/device?user_code=${started.user_code}`);
    expect(anon.status).toBe(303);
    expect(anon.location).toStartWith('/auth/login?return_to=');
    // A form without its CSRF token is refused and decides nothing.
    expect((await answer(started.user_code, 'allow', { csrf: false })).status).toBe(403);
    h.clock.advance(20_000);
    expect((await poll()).body.error).toBe('authorization_pending');
    expect((await answer(started.user_code.toLowerCase().replace('-', ''))).status).toBe(200);
    h.clock.advance(20_000);
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      client,
      await oauth.deviceCodeGrantRequest(as, client, oauth.None(), started.device_code, clientOptions(h)),
    );
    expect(tokens.scope).toBe('products:read');
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(200);
    h.clock.advance(20_000);
    expect((await poll()).body.error).toBe('invalid_grant');
  }, 60_000);

  test('denied is access_denied; an unanswered code expires (expired_token); a wrong code is shown as such', async () => {
    const { as } = await discover(h);
    const client = await register(h, as, { grant_types: [DEVICE] });
    const start = async () =>
      (
        await h.app.handle(
          new Request('http://svc.test/auth/device_authorization', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `client_id=${client.client_id}`,
          }),
        )
      ).json() as Promise<any>;
    const a = await start();
    await answer(a.user_code, 'deny');
    expect((await tokenRequest(h, { grant_type: DEVICE, device_code: a.device_code, client_id: client.client_id })).body.error).toBe('access_denied');
    const b = await start();
    h.clock.advance(601_000);
    expect((await tokenRequest(h, { grant_type: DEVICE, device_code: b.device_code, client_id: client.client_id })).body.error).toBe('expired_token');
    const wrong = await human.get('/auth/device?user_code=BBBB-BBBB');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('unknown or has expired');
    // Another client's device code is not this client's.
    const c = await start();
    const other = await register(h, as, { grant_types: [DEVICE] });
    expect((await tokenRequest(h, { grant_type: DEVICE, device_code: c.device_code, client_id: other.client_id })).body.error).toBe('invalid_grant');
  }, 60_000);
});

describe('the MCP tool svc_login', () => {
  test('login gives the human a code; polling returns tokens; refresh rotates; a replay and logout revoke', async () => {
    const { client } = await mcpClient(h, { key: await h.newKey(['platform']) });
    const tool = async (args: Record<string, unknown>) =>
      JSON.parse(((await client.callTool({ name: 'svc_login', arguments: args })) as any).content[0].text);
    const started = await tool({ action: 'login', scope: 'products:read orders:read' });
    expect(started).toMatchObject({ status: 'pending', verification_uri: 'http://svc.test/auth/device', interval: 5 });
    expect((await tool({ action: 'login', device_code: started.device_code })).status).toBe('authorization_pending');
    await answer(started.user_code);
    h.clock.advance(10_000);
    const done = await tool({ action: 'login', device_code: started.device_code });
    expect(done).toMatchObject({ status: 'approved', token_type: 'Bearer', scope: 'products:read orders:read', store_id: h.store.id });
    expect((await h.call('GET', '/orders', undefined, bearer(done.access_token))).status).toBe(200);
    // The tokens are the caller's: the audit trail has placeholders.
    await flushAudits();
    const audit = await h.db.query("SELECT output FROM tool_execution_log() WHERE store_id = $1 AND tool = 'svc_login'", [h.store.id]);
    expect(JSON.stringify(audit)).not.toContain(done.refresh_token);
    expect(JSON.stringify(audit)).not.toContain(started.device_code);
    // Inputs too: a pending device_code read from the audit trail would let a reader take the tokens.
    const inputs = await h.db.query("SELECT input FROM tool_execution_log() WHERE store_id = $1 AND tool = 'svc_login'", [h.store.id]);
    expect(JSON.stringify(inputs)).not.toContain(started.device_code);

    const next = await tool({ action: 'refresh_token', refresh_token: done.refresh_token });
    expect(next.status).toBe('approved');
    expect(next.refresh_token).not.toBe(done.refresh_token);
    // Replaying the spent refresh token revokes the whole session.
    expect((await tool({ action: 'refresh_token', refresh_token: done.refresh_token })).status).toBe('invalid_grant');
    expect((await h.call('GET', '/orders', undefined, bearer(next.access_token))).status).toBe(401);
    await flushAudits();
    expect(
      JSON.stringify(await h.db.query("SELECT input FROM tool_execution_log() WHERE store_id = $1 AND tool = 'svc_login'", [h.store.id])),
    ).not.toContain(done.refresh_token);

    // A new session, then logout with its refresh token.
    const again = await tool({ action: 'login' });
    await answer(again.user_code);
    h.clock.advance(10_000);
    const second = await tool({ action: 'login', device_code: again.device_code });
    expect((await h.call('GET', '/products', undefined, bearer(second.access_token))).status).toBe(200);
    expect((await tool({ action: 'logout', refresh_token: second.refresh_token })).status).toBe('logged_out');
    expect((await h.call('GET', '/products', undefined, bearer(second.access_token))).status).toBe(401);
    // Without a refresh token, an API key has no session to end.
    const none: any = await client.callTool({ name: 'svc_login', arguments: { action: 'logout' } });
    expect(none.isError).toBe(true);
    expect(none.content[0].text).toContain('no_oauth_session');
    await client.close();
  }, 60_000);
});
