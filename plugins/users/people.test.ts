import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, setup, type Harness } from '../../test/kit/setup';
import { authorize, discover, exchange, register } from '../../test/kit/oauth';
import { addUser, browser, formFields, PASSWORD, uniqueIp } from '../../test/kit/users';

/** Issue 11: roles per store, the last owner, invitations, sign-in pages, approvals by role. */
let h: Harness;
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
}, 120_000);

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' };
const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

/** A user's access token for the test store, through the real flow. */
async function tokenFor(email: string, scope: string) {
  const { as } = await discover(h);
  const client = await register(h, as);
  const a = await authorize(h, as, client, browser(h), email, { scope, storeId: h.store.id });
  return (await exchange(h, as, client, a.callback!, a.verifier, a.state)).access_token;
}

describe('members and roles', () => {
  test('the operator creates the first owner; a duplicate is 409; a short password is 400', async () => {
    const email = `first-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const res = await h.call('POST', '/users', { email, password: PASSWORD, role: 'owner' }, admin);
    expect(res).toMatchObject({ status: 201, body: { object: 'member', email, role: 'owner' } });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect((await h.call('POST', '/users', { email, role: 'viewer' }, admin)).body.error.code).toBe('already_member');
    const short = await h.call('POST', '/users', { email: 'x@example.com', password: 'short', role: 'viewer' }, admin);
    expect(short.body.error).toMatchObject({ code: 'validation_failed', param: 'password' });
    // A store's API key cannot use the operator's route (SPEC 7: a valid credential, not allowed here).
    expect((await h.call('POST', '/users', { email: 'y@example.com', password: PASSWORD, role: 'owner' })).status).toBe(403);
    const [row] = await h.db.query('SELECT password_hash FROM users WHERE email = $1', [email]);
    expect(row.password_hash).toStartWith('$argon2id$');
  });

  test('only owners manage owners, and a store keeps one owner even under parallel demotions', async () => {
    const a = await addUser(h, 'owner');
    const b = await addUser(h, 'owner');
    const adm = await addUser(h, 'admin');
    // Remove every other owner of the test store first, so a and b are the only two.
    await h.db.query("DELETE FROM store_memberships WHERE store_id = $1 AND role = 'owner' AND user_id <> ALL($2)", [h.store.id, [a.id, b.id]]);
    const [ta, tb, tadm] = await Promise.all([
      tokenFor(a.email, 'users:write users:read'),
      tokenFor(b.email, 'users:write'),
      tokenFor(adm.email, 'users:write'),
    ]);
    const byAdmin = await h.call('PATCH', `/members/${a.id}`, { role: 'viewer' }, bearer(tadm));
    expect(byAdmin).toMatchObject({ status: 403, body: { error: { code: 'role_required' } } });
    // Both owners demote each other at once: exactly one succeeds; the other, no longer an owner, is refused.
    const results = await Promise.all([
      h.call('PATCH', `/members/${b.id}`, { role: 'admin' }, bearer(ta)),
      h.call('PATCH', `/members/${a.id}`, { role: 'admin' }, bearer(tb)),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    const list = await h.call('GET', '/members');
    const owners = list.body.data.filter((m: any) => m.role === 'owner');
    expect(owners.length).toBe(1);
    // The last owner can neither step down nor leave.
    const last = owners[0].user_id === a.id ? ta : tb;
    const stepDown = await h.call('PATCH', `/members/${owners[0].user_id}`, { role: 'admin' }, bearer(last));
    expect(stepDown).toMatchObject({ status: 409, body: { error: { code: 'last_owner' } } });
    const leave = await Promise.all([1, 2].map(() => h.call('DELETE', `/members/${owners[0].user_id}`, undefined, bearer(last))));
    expect(leave.map((r) => r.status)).toEqual([409, 409]);
  });

  test('invitations: an owner invites, the link signs the new member up and in', async () => {
    const o = await addUser(h, 'owner');
    const t = await tokenFor(o.email, 'users:write');
    const email = `new-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const inv = await h.call('POST', '/invitations', { email, role: 'staff' }, bearer(t));
    const link = new URL(String(inv.body.url));
    expect(inv).toMatchObject({
      status: 201,
      body: { object: 'invitation', email, role: 'staff', url: expect.stringContaining('/auth/invitation?token=') },
    });
    // An API key is not a person: it cannot invite.
    expect((await h.call('POST', '/invitations', { email, role: 'staff' })).status).toBe(403);
    const b = browser(h);
    const page = await b.get(link.pathname + link.search);
    expect(page.text).toContain('as staff');
    const joined = await b.post('/auth/invitation', { ...formFields(page.text, '/auth/invitation'), name: 'New Person', password: PASSWORD });
    expect(joined.status).toBe(303);
    const members = await h.call('GET', '/members');
    expect(members.body.data.find((m: any) => m.email === email)).toMatchObject({ role: 'staff', name: 'New Person' });
    // The link works once.
    expect((await b.get(link.pathname + link.search)).status).toBe(404);
  });
});

describe('browser sign-in', () => {
  test('the session cookie is HttpOnly, SameSite=Lax, Secure behind https; a missing CSRF token is refused', async () => {
    const u = await addUser(h, 'viewer');
    const b = browser(h, { origin: 'http://svc.test' });
    const page = await b.get('/auth/login');
    const csrfCookie = page.headers.get('set-cookie')!;
    expect(csrfCookie).toStartWith('svc_csrf=');
    for (const attr of ['; Path=/', '; HttpOnly', '; SameSite=Lax']) expect(csrfCookie).toContain(attr);
    const { csrf_token, ...rest } = formFields(page.text, '/auth/login');
    const noCsrf = await b.post('/auth/login', { ...rest, email: u.email, password: PASSWORD });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.headers.get('set-cookie') ?? '').not.toContain('svc_session');
    const ok = await b.post('/auth/login', { ...rest, csrf_token, email: u.email, password: PASSWORD });
    expect(ok.status).toBe(303);
    // Attributes in any order: exactly these, and no Secure over plain http.
    const [pair, ...attrs] = ok.headers.get('set-cookie')!.split('; ');
    expect(pair).toMatch(/^svc_session=[^;]+$/);
    expect(attrs.map((a) => a.replace(/=\d+$/, '=N')).sort()).toEqual(['HttpOnly', 'Max-Age=N', 'Path=/', 'SameSite=Lax']);
    const secure = await h.app.handle(
      new Request('http://svc.test/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https', cookie: `svc_csrf=${csrf_token}` },
        body: new URLSearchParams({ csrf_token, email: u.email, password: PASSWORD }).toString(),
      }),
    );
    expect(secure.headers.get('set-cookie')).toContain('; Secure');
    // Sign out needs the CSRF token too.
    expect((await b.post('/auth/logout', {})).status).toBe(403);
  });

  test('one generic failure message; failed attempts slow the next, per account and per address, even in parallel', async () => {
    const u = await addUser(h, 'viewer');
    const b = browser(h, { ip: '203.0.113.7' });
    const fields = formFields((await b.get('/auth/login')).text, '/auth/login');
    const unknown = await b.post('/auth/login', { ...fields, email: 'nobody@example.com', password: 'wrong password!' });
    expect(unknown.status).toBe(401);
    h.clock.advance(2_000);
    const wrong = await browser(h, { ip: '203.0.113.8' });
    const f2 = formFields((await wrong.get('/auth/login')).text, '/auth/login');
    // Five guesses at once for one account: one is checked, the others wait.
    const guesses = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => wrong.post('/auth/login', { ...f2, email: u.email, password: `guess number ${i}` })),
    );
    expect(guesses.map((g) => g.status).sort()).toEqual([401, 429, 429, 429, 429]);
    const failed = guesses.find((g) => g.status === 401)!.text;
    expect(failed).toContain('Email or password is incorrect.');
    expect(unknown.text).toContain('Email or password is incorrect.');
    // Right after a failure even the right password waits (from another address too: per account).
    const other = browser(h, { ip: '198.51.100.1' });
    const f3 = formFields((await other.get('/auth/login')).text, '/auth/login');
    const early = await other.post('/auth/login', { ...f3, email: u.email, password: PASSWORD });
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('1');
    h.clock.advance(1_500);
    expect((await other.post('/auth/login', { ...f3, email: u.email, password: PASSWORD })).status).toBe(303);
    // Per address: the first address's failures slow its next try at any account.
    const sameIp = await b.post('/auth/login', { ...fields, email: u.email, password: PASSWORD });
    expect(sameIp.status === 303 || sameIp.status === 429).toBe(true);
    for (const r of [...guesses, unknown, early]) expect(r.text).not.toContain('guess number');
  });

  test('a client that writes its own X-Forwarded-For entry is still counted at its real address', async () => {
    const [first, second] = [await addUser(h, 'viewer'), await addUser(h, 'viewer')];
    // The proxy appends the address it saw (the rightmost entry); what is left of it the client wrote.
    const real = uniqueIp();
    const b = browser(h, { ip: real });
    const fields = formFields((await b.get('/auth/login')).text, '/auth/login');
    expect((await b.post('/auth/login', { ...fields, email: first.email, password: 'wrong password!' })).status).toBe(401);
    // Another account (its own count is clean), a fresh spoofed entry: the address's failure still counts.
    const spoofing = browser(h, { ip: `${uniqueIp()}, ${real}` });
    const f2 = formFields((await spoofing.get('/auth/login')).text, '/auth/login');
    const next = await spoofing.post('/auth/login', { ...f2, email: second.email, password: PASSWORD });
    expect(next.status).toBe(429);
    h.clock.advance(1_500);
    expect((await spoofing.post('/auth/login', { ...f2, email: second.email, password: PASSWORD })).status).toBe(303);
  });
});

describe('approvals by role (SPEC 3.1)', () => {
  async function heldCall() {
    const id = crypto.randomUUID();
    const approval = {
      gated_by: 'mcp',
      timeout_minutes: 30,
      timeout_action: 'reject',
      group: 'default',
      escalated: false,
      decision: null,
      decided_at: null,
      decided_by: null,
      comment: null,
      reason: null,
    };
    await h.db.query(
      `INSERT INTO tool_executions (id, store_id, tool, action, source, status, input, approval, expires_at, principal, created_at)
       VALUES ($1, $2, 'products', 'delete_product', 'mcp', 'pending_approval', '{}'::jsonb, $3::text::jsonb, $4, $5::text::jsonb, $6)`,
      [
        id,
        h.store.id,
        JSON.stringify(approval),
        new Date(h.clock.now().getTime() + 1800_000),
        JSON.stringify({ key_id: crypto.randomUUID(), scopes: ['products'], livemode: false }),
        h.clock.now(),
      ],
    );
    return id;
  }

  test('a viewer and staff cannot decide; an approver can, and the record names the user', async () => {
    const [viewer, staff, approver] = await Promise.all([addUser(h, 'viewer'), addUser(h, 'staff'), addUser(h, 'approver')]);
    const id = await heldCall();
    const tv = await tokenFor(viewer.email, 'ai:write approvals:write ai:read');
    expect((await h.call('POST', `/tool-executions/${id}/approve`, {}, bearer(tv))).status).toBe(403);
    const ts = await tokenFor(staff.email, 'ai:write');
    const byStaff = await h.call('POST', `/tool-executions/${id}/reject`, { reason: 'no' }, bearer(ts));
    // Deciding takes approvals:write on a user's token, which staff's role never holds.
    expect(byStaff).toMatchObject({ status: 403, body: { error: { code: 'insufficient_scope' } } });
    const ta = await tokenFor(approver.email, 'approvals:write');
    const ok = await h.call('POST', `/tool-executions/${id}/reject`, { reason: 'not today' }, bearer(ta));
    expect(ok).toMatchObject({ status: 200, body: { status: 'rejected', approval: { decided_by: approver.id, reason: 'not today' } } });
  });
});
