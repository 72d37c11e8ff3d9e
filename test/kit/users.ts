import { ADMIN_TOKEN, type Harness } from './setup';

/** Test helpers: people in stores, and a cookie-keeping browser over the in-process app. */

export const PASSWORD = 'correct horse battery staple';

export async function addUser(h: Harness, role: string, opts: { email?: string; storeId?: string } = {}) {
  const email = opts.email ?? `${role}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const res = await h.raw(
    'POST',
    `/v1/stores/${opts.storeId ?? h.store.id}/users`,
    { email, password: PASSWORD, role, name: role },
    { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' },
  );
  if (res.status !== 201) throw new Error(`addUser: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user_id as string, email };
}

/** The hidden and visible fields of the first form of a page whose action matches. */
export function formFields(page: string, action?: string): Record<string, string> {
  const forms = [...page.matchAll(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => !action || f[1] === action);
  if (!form) throw new Error(`no form${action ? ` for ${action}` : ''} in page: ${page.slice(0, 500)}`);
  const out: Record<string, string> = {};
  for (const [tag] of form[2].matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    if (name) out[name] = unescape(/value="([^"]*)"/.exec(tag)?.[1] ?? '');
  }
  const select = /<select[^>]*name="([^"]+)"[^>]*>\s*<option value="([^"]+)"/.exec(form[2]);
  if (select) out[select[1]] = select[2];
  return out;
}
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * A browser: keeps cookies, never follows redirects (tests look at each hop). It comes from an
 * address of its own unless given one (X-Forwarded-For, counted with SVC_TRUST_PROXY, which the
 * files that sign in set): sign-in throttling counts per address, and the test database is shared
 * by the files of a shard.
 */
export function browser(h: Harness, opts: { ip?: string; origin?: string } = {}) {
  const ip = opts.ip ?? uniqueIp();
  const jar = new Map<string, string>();
  async function go(method: string, url: string, form?: Record<string, string>) {
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    headers['x-forwarded-for'] = ip;
    const init: RequestInit = { method, headers, redirect: 'manual' };
    if (form) {
      init.body = new URLSearchParams(form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await h.app.handle(new Request(new URL(url, opts.origin ?? 'http://svc.test'), init));
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const [k, v] = pair.split('=');
      if (attrs.some((a) => a.trim() === 'Max-Age=0')) jar.delete(k.trim());
      else jar.set(k.trim(), v);
    }
    return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
  }
  return {
    jar,
    get: (url: string) => go('GET', url),
    post: (url: string, form: Record<string, string>) => go('POST', url, form),
    /** Signs in through the login form (CSRF token taken from the page). */
    async signIn(email: string, password = PASSWORD) {
      const page = await go('GET', '/auth/login');
      return go('POST', '/auth/login', { ...formFields(page.text, '/auth/login'), email, password });
    },
  };
}

/**
 * A client address of its own (with SVC_TRUST_PROXY): sign-in throttling counts failures per
 * address in the shared test database, so another file's wrong passwords never slow these tests.
 */
export const uniqueIp = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;
