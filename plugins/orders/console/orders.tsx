import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  FilterForm,
  PageHeader,
  ResourceList,
  ResourceTable,
  Select,
  Status,
  TextArea,
  useAction,
  useConsole,
  useCursorList,
  useResource,
  when,
} from '../../../console/src/kit';

interface Order {
  id: string;
  order_number: string;
  status: string;
  currency: string;
  total: number;
  customer_id: string | null;
  payment_method: string | null;
  line_items: { name?: string; sku?: string; quantity: number; unit_price?: number; total?: number }[];
  amount_refunded: number;
  created_at: string;
  cancelled_at: string | null;
  cancel_reason: string | null;
}

const money = (o: Order, n: number) => `${n.toFixed(2)} ${o.currency}`;

/** Orders (SPEC 2.3, 4.1): list with a status filter and number search, detail, mark paid, cancel. */
export function OrdersPage() {
  const c = useConsole();
  return c.arg ? <Detail id={c.arg} /> : <List />;
}

function List() {
  const [status, setStatus] = useState('');
  const [q, setQ] = useState('');
  const list = useCursorList<Order>('/orders', { status, q });
  return (
    <>
      <PageHeader title="Orders" />
      <FilterForm onSubmit={list.reload}>
        <Field label="Order number" value={q} onValue={setQ} />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], 'pending', 'paid', 'fulfilled', 'completed', 'cancelled']} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Orders"
        empty="No orders."
        columns={[
          { title: 'Number', cell: (o) => <a href={`#/orders/${o.id}`}>#{o.order_number}</a> },
          { title: 'Status', cell: (o) => <Status status={o.status} /> },
          { title: 'Total', num: true, cell: (o) => money(o, o.total) },
          { title: 'Placed', cell: (o) => when(o.created_at) },
        ]}
      />
    </>
  );
}

function Detail({ id }: { id: string }) {
  const c = useConsole();
  const { data: o, setData: setO, error } = useResource<Order>(`/orders/${encodeURIComponent(id)}`);
  const [reason, setReason] = useState('');
  const act = useAction();
  const writable = c.can('orders:write');
  const change = (fn: () => Promise<any>) =>
    act.run(async () => {
      const r = await fn();
      if (!r.ok) return act.setError(r.error);
      setO(r.body);
    });
  return (
    <>
      <PageHeader title={o ? `Order #${o.order_number}` : 'Order'}>
        <a href="#/orders">Back to orders</a>
      </PageHeader>
      <ErrorLine error={act.error ?? error} />
      {o && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Status status={o.status} />
            </dd>
            <dt>Total</dt>
            <dd>{money(o, o.total)}</dd>
            <dt>Refunded</dt>
            <dd>{money(o, o.amount_refunded)}</dd>
            <dt>Payment</dt>
            <dd>{o.payment_method ?? '—'}</dd>
            <dt>Customer</dt>
            <dd>{o.customer_id ? <a href={`#/customers/${o.customer_id}`}>{o.customer_id.slice(0, 8)}</a> : '—'}</dd>
            <dt>Placed</dt>
            <dd>{when(o.created_at)}</dd>
            {o.cancelled_at && (
              <>
                <dt>Cancelled</dt>
                <dd>
                  {when(o.cancelled_at)} {o.cancel_reason ? `(${o.cancel_reason})` : ''}
                </dd>
              </>
            )}
          </dl>
          <h2>Items</h2>
          <ResourceTable
            label="Items"
            rows={o.line_items.map((li, i) => ({ ...li, key: String(i) }))}
            rowKey={(li) => li.key}
            columns={[
              {
                title: 'Item',
                cell: (li) => (
                  <>
                    {li.name ?? '—'}
                    {li.sku && <div class="sub">{li.sku}</div>}
                  </>
                ),
              },
              { title: 'Quantity', num: true, cell: (li) => li.quantity },
              { title: 'Price', num: true, cell: (li) => (li.unit_price == null ? '—' : money(o, li.unit_price)) },
              { title: 'Total', num: true, cell: (li) => (li.total == null ? '—' : money(o, li.total)) },
            ]}
          />
          {writable && (
            <div class="form actions">
              <div class="buttons">
                {o.status === 'pending' && (
                  <button class="primary" disabled={act.busy} onClick={() => change(() => api('PATCH', `/orders/${o.id}`, { status: 'paid' }))}>
                    Mark paid
                  </button>
                )}
                {o.status === 'paid' && (
                  <button disabled={act.busy} onClick={() => change(() => api('PATCH', `/orders/${o.id}`, { status: 'fulfilled' }))}>
                    Mark fulfilled
                  </button>
                )}
              </div>
              {o.status !== 'cancelled' && o.status !== 'completed' && (
                <>
                  <TextArea label="Cancellation reason" value={reason} onValue={setReason} rows={2} />
                  <button
                    class="danger"
                    disabled={act.busy}
                    onClick={() => change(() => api('POST', `/orders/${o.id}/cancel`, reason ? { reason } : {}))}
                  >
                    Cancel order
                  </button>
                </>
              )}
            </div>
          )}
        </>
      )}
    </>
  );
}
