/**
 * The console's only way to the server: the public REST API with a user access token. The token
 * comes from the browser session (an HttpOnly cookie the page cannot read) through
 * POST /auth/console/token, and lives in this module's memory only: never in the page source,
 * localStorage or a cookie the page can read. A reload asks for a new one.
 */
import type { AnswerOf, BodyOf, Method, Operation, PathOf, RouteOf } from './api-paths';
import { readEvents } from './sse';

export interface StoreRef {
  id: string;
  name: string;
  role: string;
}
export interface Session {
  user: { id: string; email: string; name: string };
  stores: StoreRef[];
}
export interface ApiError {
  type: string;
  code: string;
  message: string;
  param: string | null;
}
export type Answer<T = any> = { ok: true; status: number; body: T } | { ok: false; status: number; error: ApiError };

const CONSOLE_HEADERS = { 'x-svc-console': '1', 'content-type': 'application/json' };

/** What the signed-in user holds in a store: their role, scopes, the operations they may call, the roles they may give. */
export interface Access {
  role: string;
  scopes: string[];
  operations: Operation[];
  assignable_roles: string[];
}

let token: ({ value: string; storeId: string; expiresAt: number } & Access) | undefined;

export const signInUrl = () => `/auth/login?return_to=${encodeURIComponent('/console' + location.hash)}`;

/** Who is signed in, or undefined (then the page sends them to the sign-in page). */
export async function loadSession(): Promise<Session | undefined> {
  const res = await fetch('/auth/console/session', { credentials: 'same-origin' });
  if (res.status === 401) return undefined;
  if (!res.ok) throw new Error(`The server answered ${res.status}.`);
  return res.json();
}

/** A token for this store (kept until a minute before it expires). */
export async function useStore(storeId: string): Promise<Access> {
  if (token && token.storeId === storeId && token.expiresAt - Date.now() > 60_000) return token;
  const res = await fetch('/auth/console/token', {
    method: 'POST',
    credentials: 'same-origin',
    headers: CONSOLE_HEADERS,
    body: JSON.stringify({ store_id: storeId }),
  });
  if (res.status === 401) {
    location.assign(signInUrl());
    throw new Error('Signed out.');
  }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error?.message ?? `The server answered ${res.status}.`);
  token = {
    value: body.access_token,
    storeId,
    expiresAt: Date.now() + body.expires_in * 1000,
    role: body.role,
    scopes: body.scopes,
    operations: body.operations,
    assignable_roles: body.assignable_roles,
  };
  return token;
}

export async function signOut() {
  await fetch('/auth/console/logout', { method: 'POST', credentials: 'same-origin', headers: CONSOLE_HEADERS, body: '{}' });
  token = undefined;
  location.assign('/auth/login?return_to=/console');
}

const storePath = (path: string) => `/v1/stores/${token!.storeId}${path}`;

/**
 * One REST call on the current store: the parsed body, or the SPEC error envelope's error. The path
 * is the route's (`/products/${id}`, a query string may follow): the answer and the body are typed
 * from the API's description, and a path the API does not have fails the type-check.
 */
export function api<M extends Method, P extends PathOf<M>>(
  method: M,
  path: P,
  body?: BodyOf<M, RouteOf<P>>,
): Promise<Answer<AnswerOf<M, RouteOf<P>>>> {
  return request(method, path, body);
}

/** api() untyped, for the kit's own hooks (which type their answers by the route they are given). */
export async function request(method: string, path: string, body?: unknown, retried = false): Promise<Answer<any>> {
  await useStore(token!.storeId);
  const res = await fetch(storePath(path), {
    method,
    headers: { authorization: `Bearer ${token!.value}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // The token lapsed (or the role changed): a new one from the session, once.
  if (res.status === 401 && !retried) {
    token!.expiresAt = 0;
    return request(method, path, body, true);
  }
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  if (res.ok) return { ok: true, status: res.status, body: parsed };
  const error: ApiError = parsed?.error ?? { type: 'api_error', code: 'unknown', message: `The server answered ${res.status}.`, param: null };
  return { ok: false, status: res.status, error };
}

/**
 * A binary resource of the store (a QR image) as a data: URL, so an <img> can show it without the
 * token in its address (the CSP allows data: images, not blob:).
 */
export async function apiDataUrl(path: PathOf<'GET'>, retried = false): Promise<string> {
  await useStore(token!.storeId);
  const res = await fetch(storePath(path), { headers: { authorization: `Bearer ${token!.value}` } });
  if (res.status === 401 && !retried) {
    token!.expiresAt = 0;
    return apiDataUrl(path, true);
  }
  if (!res.ok) {
    const e = await res.json().catch(() => null);
    throw new Error(e?.error?.message ?? `The server answered ${res.status}.`);
  }
  const blob = await res.blob();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error('The image could not be read.'));
    reader.readAsDataURL(blob);
  });
}

/** Query string from defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): '' | `?${string}` {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Reads a server-sent event stream of the store (fetch, so the token goes in a header), calling
 * onEvent for each `data:` JSON line; reconnects after a drop or the server's `end` (with a pause
 * that grows to 10 s) until the signal aborts. onOpen runs on every (re)connection.
 */
export async function follow(path: PathOf<'GET'>, onEvent: (e: any) => void, signal: AbortSignal, onOpen?: (live: boolean) => void) {
  let pause = 500;
  while (!signal.aborted) {
    try {
      await useStore(token!.storeId);
      const res = await fetch(storePath(path), { headers: { authorization: `Bearer ${token!.value}`, accept: 'text/event-stream' }, signal });
      if (res.status === 401) token!.expiresAt = 0;
      if (!res.ok || !res.body) throw new Error(`stream ${res.status}`);
      onOpen?.(true);
      pause = 500;
      await readEvents(res.body, onEvent);
    } catch {
      if (signal.aborted) return;
    }
    onOpen?.(false);
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 10_000);
  }
}

/** POSTs to a store path and reads its SSE reply (agent chat), event by event. */
export async function postStream(path: PathOf<'POST'>, body: unknown, onEvent: (e: any) => void, signal?: AbortSignal): Promise<Response> {
  await useStore(token!.storeId);
  const res = await fetch(storePath(path), {
    method: 'POST',
    headers: { authorization: `Bearer ${token!.value}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok || !res.body) {
    const e = await res.json().catch(() => null);
    throw new Error(e?.error?.message ?? `The server answered ${res.status}.`);
  }
  await readEvents(res.body, onEvent);
  return res;
}
