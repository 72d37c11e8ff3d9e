import { useState } from 'preact/hooks';
import {
  ErrorLine,
  Field,
  FilterForm,
  PageHeader,
  ResourceList,
  useConsole,
  useCursorList,
  useEditor,
  when,
  type Resource,
} from '../../../console/src/kit';

type Customer = Resource<'/customers/{id}'>;

const nameOf = (c: Customer) => [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email;

/** Customers: list and search, create, edit. */
export function CustomersPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

function List() {
  const c = useConsole();
  const [q, setQ] = useState('');
  const list = useCursorList('/customers', { q });
  return (
    <>
      <PageHeader title="Customers">
        {c.may('customers.create_customer') && (
          <a class="button primary" href="#/customers/new">
            New customer
          </a>
        )}
      </PageHeader>
      <FilterForm onSubmit={list.reload} submit="Search">
        <Field label="Search" type="search" value={q} onValue={setQ} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Customers"
        empty="No customers."
        columns={[
          { title: 'Name', cell: (x) => <a href={`#/customers/${x.id}`}>{nameOf(x)}</a> },
          { title: 'Email', cell: (x) => x.email },
          { title: 'Since', cell: (x) => when(x.created_at) },
        ]}
      />
    </>
  );
}

const formOf = (c: Customer) => ({ email: c.email, first_name: c.first_name ?? '', last_name: c.last_name ?? '', phone: c.phone ?? '' });

function Editor({ id }: { id?: string }) {
  const c = useConsole();
  const writable = c.may(id ? 'customers.update_customer' : 'customers.create_customer');
  const ed = useEditor({ path: '/customers', id, blank: { email: '', first_name: '', last_name: '', phone: '' }, formOf });
  const { form, set } = ed;
  const save = async (e: Event) => {
    e.preventDefault();
    // Empty optional fields are left out, not sent as "".
    const body = {
      email: form.email,
      first_name: form.first_name || undefined,
      last_name: form.last_name || undefined,
      phone: form.phone || undefined,
    };
    if (await ed.save(body)) c.go('customers');
  };
  return (
    <>
      <PageHeader title={id ? `Customer: ${form.email}` : 'New customer'}>
        <a href="#/customers">Back to customers</a>
      </PageHeader>
      {ed.loaded && (
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable || ed.busy}>
            <Field label="Email" type="email" value={form.email} onValue={set('email')} required />
            <Field label="First name" value={form.first_name} onValue={set('first_name')} />
            <Field label="Last name" value={form.last_name} onValue={set('last_name')} />
            <Field label="Phone" type="tel" value={form.phone} onValue={set('phone')} />
          </fieldset>
          {writable && (
            <button class="primary" type="submit" disabled={ed.busy}>
              {id ? 'Save' : 'Create customer'}
            </button>
          )}
        </form>
      )}
      <ErrorLine error={ed.error} />
    </>
  );
}
