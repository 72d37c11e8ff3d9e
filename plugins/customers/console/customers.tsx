import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, PageHeader, query, useAction, useConsole, when } from '../../../console/src/kit';

interface Customer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  accepts_marketing: boolean;
  tags: string[];
  created_at: string;
}

const nameOf = (c: Customer) => [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email;

/** Customers: list and search, create, edit. */
export function CustomersPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [q, setQ] = useState('');
  const [items, setItems] = useState<Customer[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<any>(null);
  const load = async (after?: string) => {
    const r = await api('GET', `/customers${query({ q, limit: 25, starting_after: after })}`);
    if (!r.ok) return setError(r.error);
    setError(null);
    setItems((old) => (after ? [...(old ?? []), ...r.body.data] : r.body.data));
    setMore(r.body.has_more);
  };
  useEffect(() => void load(), []);
  return (
    <>
      <PageHeader title="Customers">
        {c.can('customers:write') && (
          <a class="button primary" href="#/customers/new">
            New customer
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
        <Field label="Search" type="search" value={q} onValue={setQ} />
        <button type="submit">Search</button>
      </form>
      <ErrorLine error={error} />
      {items && items.length === 0 && <p class="empty">No customers.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Customers">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {items.map((x) => (
                <tr key={x.id}>
                  <td>
                    <a href={`#/customers/${x.id}`}>{nameOf(x)}</a>
                  </td>
                  <td>{x.email}</td>
                  <td>{when(x.created_at)}</td>
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
  const writable = c.can('customers:write');
  const [email, setEmail] = useState('');
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [phone, setPhone] = useState('');
  const [loaded, setLoaded] = useState(!id);
  const act = useAction();
  useEffect(() => {
    if (!id) return;
    api<Customer>('GET', `/customers/${encodeURIComponent(id)}`).then((r) => {
      if (!r.ok) return act.setError(r.error);
      setEmail(r.body.email);
      setFirst(r.body.first_name ?? '');
      setLast(r.body.last_name ?? '');
      setPhone(r.body.phone ?? '');
      setLoaded(true);
    });
  }, [id]);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const body: Record<string, unknown> = { email, first_name: first || undefined, last_name: last || undefined, phone: phone || undefined };
      const r = id ? await api('PATCH', `/customers/${id}`, body) : await api('POST', '/customers', body);
      if (!r.ok) return act.setError(r.error);
      c.go('customers');
    });
  };
  return (
    <>
      <PageHeader title={id ? `Customer: ${email}` : 'New customer'}>
        <a href="#/customers">Back to customers</a>
      </PageHeader>
      {loaded && (
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable || act.busy}>
            <Field label="Email" type="email" value={email} onValue={setEmail} required />
            <Field label="First name" value={first} onValue={setFirst} />
            <Field label="Last name" value={last} onValue={setLast} />
            <Field label="Phone" type="tel" value={phone} onValue={setPhone} />
          </fieldset>
          {writable && (
            <button class="primary" type="submit" disabled={act.busy}>
              {id ? 'Save' : 'Create customer'}
            </button>
          )}
        </form>
      )}
      <ErrorLine error={act.error} />
    </>
  );
}
