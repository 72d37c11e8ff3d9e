import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FunctionComponent } from 'preact';
import { follow, loadSession, signInUrl, signOut, useStore, type Access, type Session } from './api';
import { Ctx, type ConsoleCtx, type Execution } from './context';
import type { PageDef } from './kit/page';
import { pages } from './pages';

/**
 * The admin console (issue 27): one page app on the public REST API. Addresses are `#/<page>/<arg>`,
 * so the server serves one page and the back button works.
 */

const STORE_KEY = 'svc.console.store'; // which store was open: not a secret, kept per tab

function parseHash(): { page: string; arg?: string } {
  const [page, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  return { page: page || 'approvals', arg: rest.length ? decodeURIComponent(rest.join('/')) : undefined };
}

function useHash() {
  const [route, setRoute] = useState(parseHash());
  useEffect(() => {
    const on = () => setRoute(parseHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Focus the page's heading once it is there (a page's code may still be loading): about a second at most. */
function focusTitle(frames = 60) {
  const title = document.getElementById('page-title');
  if (title) title.focus();
  else if (frames > 0) requestAnimationFrame(() => focusTitle(frames - 1));
}

function Shell({ session }: { session: Session }) {
  const [storeId, setStoreId] = useState(() => {
    const kept = sessionStorage.getItem(STORE_KEY);
    return session.stores.find((s) => s.id === kept)?.id ?? session.stores[0]?.id;
  });
  const [access, setAccess] = useState<Access | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState<Map<string, Execution>>(new Map());
  const [live, setLive] = useState(false);
  const [seen, setSeen] = useState<Set<string>>(new Set());
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useHash();
  const store = session.stores.find((s) => s.id === storeId);

  useEffect(() => {
    if (!storeId) return;
    sessionStorage.setItem(STORE_KEY, storeId);
    setAccess(null);
    setPending(new Map());
    useStore(storeId).then(
      // What the user may do, never the token itself (that stays in api.ts).
      ({ role, scopes, operations, assignable_roles }) => setAccess({ role, scopes, operations, assignable_roles }),
      (e) => setFailure((e as Error).message),
    );
  }, [storeId]);

  // The inbox is live on every page (the badge in the title), from the executions stream.
  useEffect(() => {
    if (!access?.operations.includes('tool_executions.stream_executions')) return;
    const stop = new AbortController();
    follow(
      '/tool-executions/stream',
      (e) => {
        if (e.type === 'snapshot') setPending(new Map(e.executions.map((x: Execution) => [x.id, x])));
        else if (e.type === 'execution')
          setPending((old) => {
            const next = new Map(old);
            if (e.execution.status === 'pending_approval') next.set(e.execution.id, e.execution);
            else next.delete(e.execution.id);
            return next;
          });
      },
      stop.signal,
      setLive,
    );
    return () => stop.abort();
  }, [access]);

  const mayCall = useMemo(() => new Set(access?.operations), [access]);
  const list = useMemo(() => [...pending.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)), [pending]);
  const ctx: ConsoleCtx | null = access
    ? {
        session,
        store: store!,
        role: access.role,
        scopes: access.scopes,
        may: (operation) => mayCall.has(operation),
        assignableRoles: access.assignable_roles,
        pending: list,
        live,
        arg: route.arg,
        go: (path) => (location.hash = `#/${path}`),
      }
    : null;
  const visible = ctx ? pages.filter((p) => !p.visible || p.visible(ctx)) : [];
  const page = visible.find((p) => p.id === route.page) ?? visible[0];

  // What is on the approvals page while the tab is visible has been seen; the rest is unread.
  useEffect(() => {
    const mark = () => {
      if (page?.id === 'approvals' && document.visibilityState === 'visible') setSeen(new Set(list.map((x) => x.id)));
    };
    mark();
    document.addEventListener('visibilitychange', mark);
    return () => document.removeEventListener('visibilitychange', mark);
  }, [page?.id, list]);
  const unread = list.filter((x) => !seen.has(x.id)).length;
  useEffect(() => {
    document.title = `${unread ? `(${unread}) ` : ''}${page?.title ?? 'Console'} · svc`;
  }, [unread, page?.title]);

  // A new page: move focus to its heading, so keyboard and screen-reader users start there.
  const first = useRef(true);
  const opened = useRef({ arg: route.arg, n: 0 });
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) return void (first.current = false);
    focusTitle();
  }, [route.page]);

  if (!storeId)
    return (
      <main id="main" class="empty">
        <h1>No store</h1>
        <p>You are not a member of any store yet. Ask an owner for an invitation.</p>
      </main>
    );
  if (failure)
    return (
      <main id="main" class="empty">
        <h1>The console could not start</h1>
        <p class="error" role="alert">
          {failure}
        </p>
      </main>
    );
  if (!ctx || !page) return <p class="loading">Loading…</p>;
  // Another resource or a blank form (#/x/<id> to #/x/new or #/x/<other>) is a new page, its state
  // fresh; a form saved at #/x/new going on to #/x/<its id> stays the same page, its notice kept.
  if (opened.current.arg !== route.arg) {
    if (opened.current.arg !== 'new') opened.current.n++;
    opened.current.arg = route.arg;
  }
  const badge = list.length;
  const navLink = (p: (typeof pages)[number]) => (
    <li key={p.id}>
      <a href={`#/${p.id}`} aria-current={p.id === page.id ? 'page' : undefined}>
        {p.title}
        {p.id === 'approvals' && badge > 0 && (
          <span class="badge" aria-label={`${badge} waiting`}>
            {badge}
          </span>
        )}
      </a>
    </li>
  );
  return (
    <Ctx.Provider value={ctx}>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('page-title')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">svc</span>
        {session.stores.length > 1 ? (
          <label class="store-picker">
            <span class="visually-hidden">Store</span>
            <select value={storeId} onChange={(e) => setStoreId((e.target as HTMLSelectElement).value)}>
              {session.stores.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.role})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span class="store-name">{store!.name}</span>
        )}
        <button class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <span class="who">
          {session.user.email} · {ctx.role}
        </span>
        <button class="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav id="nav" aria-label="Console" class={menuOpen ? 'open' : ''}>
          <ul>{visible.filter((p) => !p.group).map(navLink)}</ul>
          <h2 class="nav-group">Settings</h2>
          <ul>{visible.filter((p) => p.group === 'Settings').map(navLink)}</ul>
        </nav>
        <main id="main">
          <PageView key={`${storeId}:${page.id}:${opened.current.n}`} def={page} />
        </main>
      </div>
    </Ctx.Provider>
  );
}

const loaded = new Map<string, FunctionComponent>();

/** A page, its code loaded on first opening (then kept). */
function PageView({ def }: { def: PageDef }) {
  const [Page, setPage] = useState<FunctionComponent | undefined>(() => loaded.get(def.id));
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (Page) return;
    def.load().then(
      (component) => (loaded.set(def.id, component), setPage(() => component)),
      () => setFailure('This page could not be loaded: reload the console.'),
    );
  }, [def.id]);
  if (failure)
    return (
      <p class="error" role="alert">
        {failure}
      </p>
    );
  return Page ? <Page /> : <p class="loading">Loading…</p>;
}

function Boot() {
  const [session, setSession] = useState<Session | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    loadSession().then(
      (s) => (s ? setSession(s) : location.assign(signInUrl())),
      (e) => setFailure((e as Error).message),
    );
  }, []);
  if (failure)
    return (
      <p class="error" role="alert">
        {failure}
      </p>
    );
  return session ? <Shell session={session} /> : <p class="loading">Loading…</p>;
}

render(<Boot />, document.getElementById('app')!);
