import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, PageHeader, query, Select, TextArea, useAction, useConsole, when } from '../../../console/src/kit';

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
  const [items, setItems] = useState<Order[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<any>(null);
  const load = async (after?: string) => {
    const r = await api('GET', `/orders${query({ status, q, limit: 25, starting_after: after })}`);
    if (!r.ok) return setError(r.error);
    setError(null);
    setItems((old) => (after ? [...(old ?? []), ...r.body.data] : r.body.data));
    setMore(r.body.has_more);
  };
  useEffect(() => void load(), []);
  return (
    <>
      <PageHeader title="Orders" />
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <Field label="Order number" value={q} onValue={setQ} />
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], 'pending', 'paid', 'fulfilled', 'completed', 'cancelled']} />
        <button type="submit">Filter</button>
      </form>
      <ErrorLine error={error} />
      {items && items.length === 0 && <p class="empty">No orders.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Orders">
          <table>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Total
                </th>
                <th scope="col">Placed</th>
              </tr>
            </thead>
            <tbody>
              {items.map((o) => (
                <tr key={o.id}>
                  <td>
                    <a href={`#/orders/${o.id}`}>#{o.order_number}</a>
                  </td>
                  <td>
                    <span class={`status s-${o.status}`}>{o.status}</span>
                  </td>
                  <td class="num">{money(o, o.total)}</td>
                  <td>{when(o.created_at)}</td>
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

function Detail({ id }: { id: string }) {
  const c = useConsole();
  const [o, setO] = useState<Order | null>(null);
  const [reason, setReason] = useState('');
  const act = useAction();
  const load = () => api<Order>('GET', `/orders/${encodeURIComponent(id)}`).then((r) => (r.ok ? setO(r.body) : act.setError(r.error)));
  useEffect(() => void load(), [id]);
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
      <ErrorLine error={act.error} />
      {o && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <span class={`status s-${o.status}`}>{o.status}</span>
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
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Items">
            <table>
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col" class="num">
                    Quantity
                  </th>
                  <th scope="col" class="num">
                    Price
                  </th>
                  <th scope="col" class="num">
                    Total
                  </th>
                </tr>
              </thead>
              <tbody>
                {o.line_items.map((li, i) => (
                  <tr key={i}>
                    <td>
                      {li.name ?? '—'}
                      {li.sku && <div class="sub">{li.sku}</div>}
                    </td>
                    <td class="num">{li.quantity}</td>
                    <td class="num">{li.unit_price == null ? '—' : money(o, li.unit_price)}</td>
                    <td class="num">{li.total == null ? '—' : money(o, li.total)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
