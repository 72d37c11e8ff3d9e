import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, PageHeader, query, Select, useAction, useConsole } from '../../../console/src/kit';

interface Product {
  id: string;
  name: string;
  sku: string | null;
  status: string;
  pricing_data: { retail: number; currency?: string };
  stock_quantity: number;
}

/** Products (SPEC 2.2, 4.1): list and search, create, edit, archive. */
export function ProductsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [items, setItems] = useState<Product[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<any>(null);
  const load = async (after?: string) => {
    const r = await api('GET', `/products${query({ q, status, limit: 25, starting_after: after })}`);
    if (!r.ok) return setError(r.error);
    setError(null);
    setItems((old) => (after ? [...(old ?? []), ...r.body.data] : r.body.data));
    setMore(r.body.has_more);
  };
  useEffect(() => void load(), []);
  return (
    <>
      <PageHeader title="Products">
        {c.can('products:write') && (
          <a class="button primary" href="#/products/new">
            New product
          </a>
        )}
      </PageHeader>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <Field label="Search name or SKU" type="search" value={q} onValue={setQ} />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'active and draft'], 'active', 'draft', 'archived']} />
        <button type="submit">Search</button>
      </form>
      <ErrorLine error={error} />
      {items && items.length === 0 && <p class="empty">No products.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Products">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">SKU</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  Stock
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`#/products/${p.id}`}>{p.name}</a>
                  </td>
                  <td>{p.sku ?? '—'}</td>
                  <td>
                    <span class={`status s-${p.status}`}>{p.status}</span>
                  </td>
                  <td class="num">{p.pricing_data?.retail?.toFixed(2)}</td>
                  <td class="num">{p.stock_quantity}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && <button onClick={() => load(items![items!.length - 1].id)}>More</button>}
    </>
  );
}

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.can('products:write');
  const [name, setName] = useState('');
  const [sku, setSku] = useState('');
  const [price, setPrice] = useState('');
  const [stock, setStock] = useState('0');
  const [status, setStatus] = useState('draft');
  const [loaded, setLoaded] = useState(!id);
  const act = useAction();
  useEffect(() => {
    if (!id) return;
    api<Product>('GET', `/products/${encodeURIComponent(id)}`).then((r) => {
      if (!r.ok) return act.setError(r.error);
      setName(r.body.name);
      setSku(r.body.sku ?? '');
      setPrice(String(r.body.pricing_data?.retail ?? ''));
      setStock(String(r.body.stock_quantity ?? 0));
      setStatus(r.body.status);
      setLoaded(true);
    });
  }, [id]);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const body: Record<string, unknown> = { name, status, pricing_data: { retail: Number(price) } };
      if (sku || id) body.sku = sku || (id ? null : undefined);
      if (!id) body.stock_quantity = Number(stock);
      const r = id ? await api('PATCH', `/products/${id}`, body) : await api('POST', '/products', body);
      if (!r.ok) return act.setError(r.error);
      c.go('products');
    });
  };
  const archive = () =>
    act.run(async () => {
      if (!confirm(`Archive ${name}? It disappears from lists; orders keep it.`)) return;
      const r = await api('DELETE', `/products/${id}`);
      if (!r.ok) return act.setError(r.error);
      c.go('products');
    });
  return (
    <>
      <PageHeader title={id ? `Product: ${name}` : 'New product'}>
        <a href="#/products">Back to products</a>
      </PageHeader>
      {loaded && (
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable || act.busy}>
            <Field label="Name" value={name} onValue={setName} required maxLength={200} />
            <Field label="SKU" value={sku} onValue={setSku} hint="Unique in the store; optional." />
            <Field label="Price" type="number" step="0.01" min="0" value={price} onValue={setPrice} required inputMode="decimal" />
            {!id && <Field label="Stock" type="number" step="1" min="0" value={stock} onValue={setStock} />}
            <Select label="Status" value={status} onValue={setStatus} options={['draft', 'active']} />
          </fieldset>
          <ErrorLine error={act.error} />
          {writable && (
            <div class="buttons">
              <button class="primary" type="submit" disabled={act.busy}>
                {id ? 'Save' : 'Create product'}
              </button>
              {id && (
                <button type="button" class="danger" disabled={act.busy} onClick={archive}>
                  Archive
                </button>
              )}
            </div>
          )}
        </form>
      )}
      <ErrorLine error={!loaded ? act.error : null} />
    </>
  );
}
