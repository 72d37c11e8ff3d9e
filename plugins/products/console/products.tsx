import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  FilterForm,
  PageHeader,
  ResourceList,
  Select,
  Status,
  useConsole,
  useCursorList,
  useEditor,
  valuesOf,
  type Body,
  type Query,
  type Resource,
} from '../../../console/src/kit';

type Status = NonNullable<Query<'/products'>['status']>;
type Editable = NonNullable<Body<'POST', '/products'>['status']>;
const STATUSES = valuesOf<Status>({ active: true, draft: true, archived: true });
const EDITABLE = valuesOf<Editable>({ draft: true, active: true });

/** Products (SPEC 2.2, 4.1): list and search, create, edit, archive. */
export function ProductsPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<Status | ''>('');
  const list = useCursorList('/products', { q, status });
  return (
    <>
      <PageHeader title="Products">
        {c.may('products.create_product') && (
          <a class="button primary" href="#/products/new">
            New product
          </a>
        )}
      </PageHeader>
      <FilterForm onSubmit={list.reload} submit="Search">
        <Field label="Search name or SKU" type="search" value={q} onValue={setQ} />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'active and draft'], ...STATUSES]} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Products"
        empty="No products."
        columns={[
          { title: 'Name', cell: (p) => <a href={`#/products/${p.id}`}>{p.name}</a> },
          { title: 'SKU', class: 'mono', cell: (p) => p.sku ?? '—' },
          { title: 'Status', cell: (p) => <Status status={p.status} /> },
          { title: 'Price', num: true, cell: (p) => p.pricing_data?.retail?.toFixed(2) },
          { title: 'Stock', num: true, cell: (p) => p.stock_quantity },
        ]}
      />
    </>
  );
}

const formOf = (p: Resource<'/products/{id}'>) => ({
  name: p.name,
  sku: p.sku ?? '',
  price: String(p.pricing_data?.retail ?? ''),
  stock: String(p.stock_quantity ?? 0),
  status: p.status as Editable,
});

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.may(id ? 'products.update_product' : 'products.create_product');
  const ed = useEditor({ path: '/products', id, blank: { name: '', sku: '', price: '', stock: '0', status: 'draft' as Editable }, formOf });
  const { form, set } = ed;
  const save = async (e: Event) => {
    e.preventDefault();
    const body: Body<'POST', '/products'> = { name: form.name, status: form.status, pricing_data: { retail: Number(form.price) } };
    if (form.sku || id) (body as Body<'PATCH', '/products/{id}'>).sku = form.sku || (id ? null : undefined); // an emptied SKU is cleared
    if (!id) body.stock_quantity = Number(form.stock); // stock moves through inventory once created
    if (await ed.save(body)) c.go('products');
  };
  const archive = () =>
    ed.run(async () => {
      if (!confirm(`Archive ${form.name}? It disappears from lists; orders keep it.`)) return;
      const r = await api('DELETE', `/products/${id}`);
      if (!r.ok) return ed.setError(r.error);
      c.go('products');
    });
  return (
    <>
      <PageHeader title={id ? `Product: ${form.name}` : 'New product'}>
        <a href="#/products">Back to products</a>
      </PageHeader>
      {ed.loaded && (
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable || ed.busy}>
            <Field label="Name" value={form.name} onValue={set('name')} required maxLength={200} />
            <Field label="SKU" value={form.sku} onValue={set('sku')} hint="Unique in the store; optional." />
            <Field label="Price" type="number" step="0.01" min="0" value={form.price} onValue={set('price')} required inputMode="decimal" />
            {!id && <Field label="Stock" type="number" step="1" min="0" value={form.stock} onValue={set('stock')} />}
            <Select label="Status" value={form.status} onValue={set('status')} options={EDITABLE} />
          </fieldset>
          <ErrorLine error={ed.error} />
          {writable && (
            <div class="buttons">
              <button class="primary" type="submit" disabled={ed.busy}>
                {id ? 'Save' : 'Create product'}
              </button>
              {id && (
                <button type="button" class="danger" disabled={ed.busy} onClick={archive}>
                  Archive
                </button>
              )}
            </div>
          )}
        </form>
      )}
      <ErrorLine error={!ed.loaded ? ed.error : null} />
    </>
  );
}
