import { useState } from 'preact/hooks';
import {
  api,
  type Answer,
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
  valuesOf,
  when,
  type Query,
  type Resource,
} from '../../../console/src/kit';
import { Fulfilment } from './fulfilment';

type Order = Resource<'/orders/{id}'>;
type OrderStatus = NonNullable<Query<'/orders'>['status']>;
const STATUSES = valuesOf<OrderStatus>({ pending: true, paid: true, fulfilled: true, completed: true, cancelled: true });

const money = (o: Order, n: number) => `${n.toFixed(2)} ${o.currency}`;

/** Orders (SPEC 2.3, 4.1): list with a status filter and number search, detail, mark paid, cancel. */
export function OrdersPage() {
  const c = useConsole();
  return c.arg ? <Detail id={c.arg} /> : <List />;
}

function List() {
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const [q, setQ] = useState('');
  const list = useCursorList('/orders', { status, q });
  return (
    <>
      <PageHeader title="Orders" />
      <FilterForm onSubmit={list.reload}>
        <Field label="Order number" value={q} onValue={setQ} />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
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
  const { data: o, setData: setO, error } = useResource(`/orders/${encodeURIComponent(id)}`);
  const [reason, setReason] = useState('');
  const act = useAction();
  const change = (fn: () => Promise<Answer<Order>>) =>
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
            <dt>Channel</dt>
            <dd>{o.channel}</dd>
            {o.agent && (
              <>
                <dt>Agent</dt>
                <dd>
                  {o.agent.name ?? o.agent.protocol.toUpperCase()}
                  <div class="sub">{o.agent.profile_url ?? (o.agent.api_key_id ? `API key ${o.agent.api_key_id.slice(0, 8)}` : '')}</div>
                </dd>
              </>
            )}
            {o.shipping_method && (
              <>
                <dt>Shipping</dt>
                <dd>
                  {o.shipping_method} ({money(o, o.shipping_total)})
                </dd>
              </>
            )}
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
          <Fulfilment order={o} onChange={() => void api('GET', `/orders/${o.id}`).then((r) => r.ok && setO(r.body))} />
          {c.may('orders.update_order') && (
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
