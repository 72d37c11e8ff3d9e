import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { useConsole } from '../context';
import { ErrorLine, PageHeader } from '../ui';

/** Settings → Store: what the store is, and the signed-in user's role in it. */
export function StorePage() {
  const c = useConsole();
  const [store, setStore] = useState<any>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    api('GET', '/stores/current').then((r) => (r.ok ? setStore(r.body) : setError(r.error)));
  }, []);
  return (
    <>
      <PageHeader title="Store" />
      <ErrorLine error={error} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{c.store.name}</dd>
        <dt>Id</dt>
        <dd>
          <code>{c.store.id}</code>
        </dd>
        {store?.store?.plan && (
          <>
            <dt>Plan</dt>
            <dd>{store.store.plan}</dd>
          </>
        )}
        <dt>Your role</dt>
        <dd>{c.role}</dd>
        <dt>Your scopes</dt>
        <dd class="scopes">{c.scopes.join(' ')}</dd>
      </dl>
    </>
  );
}
