import { describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { runCron } from '../../test/kit/jobs';
import { authorize, discover, exchange, register } from '../../test/kit/oauth';
import { addUser, browser, uniqueIp } from '../../test/kit/users';

/** The daily prune job of sign-in and OAuth rows (both backends). */
describe('users.prune', () => {
  test('deletes what expired and clients nobody used; keeps used clients and what is still live', async () => {
    const h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
    const owner = await addUser(h, 'owner');
    const { as } = await discover(h);
    const used = await register(h, as);
    const unused = await register(h, as);
    const a = await authorize(h, as, used, browser(h, { ip: uniqueIp() }), owner.email, { scope: 'products:read' });
    await exchange(h, as, used, a.callback!, a.verifier, a.state);
    // Only this test's rows: the database is shared with other test files.
    const count = async (sql: string, params: unknown[]) => Number((await h.db.query(`SELECT count(*) AS n FROM ${sql}`, params))[0].n);
    const ofGrant = (table: string) => count(`${table} t JOIN oauth_grants g ON g.id = t.grant_id WHERE g.client_id = $1`, [used.client_id]);
    const sessions = () => count('user_sessions WHERE user_id = $1', [owner.id]);
    const run = () => runCron(h, 'users.prune');

    await run(); // nothing has expired yet: the refresh token and the session live on
    expect(await ofGrant('oauth_refresh_tokens')).toBe(1);
    expect(await ofGrant('oauth_codes')).toBe(1); // used, kept until it expires (a replay must still be caught)
    expect(await sessions()).toBeGreaterThan(0);

    h.clock.advance(31 * 86_400_000); // past the refresh token's 30 days and the clients' 30 unused days
    const late = await register(h, as); // registered today: kept
    await run();
    expect(await ofGrant('oauth_codes')).toBe(0);
    expect(await ofGrant('oauth_refresh_tokens')).toBe(0);
    expect(await sessions()).toBe(0);
    const clients = (await h.db.query<{ client_id: string }>('SELECT client_id FROM oauth_clients')).map((r) => r.client_id);
    expect(clients).toContain(used.client_id); // its grant refers to it
    expect(clients).toContain(late.client_id);
    expect(clients).not.toContain(unused.client_id);
  });
});
