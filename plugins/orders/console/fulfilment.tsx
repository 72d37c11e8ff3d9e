import { useState } from 'preact/hooks';
import { api, ErrorLine, Field, ResourceTable, useAction, useConsole, when, type Resource } from '../../../console/src/kit';

type Order = Resource<'/orders/{id}'>;

/**
 * The order page's fulfilment (issue 46): each line's units shipped and left, the shipments with
 * their tracking, and a form shipping units of a paid order (the fulfillment tool's routes).
 */
export function Fulfilment({ order, onChange }: { order: Order; onChange: () => void }) {
  const c = useConsole();
  const act = useAction();
  const shipped = new Map<string, number>();
  for (const f of order.fulfillments) for (const l of f.line_items) shipped.set(l.line_item_id, (shipped.get(l.line_item_id) ?? 0) + l.quantity);
  const left = (li: Order['line_items'][number]) => Math.max(0, li.quantity - li.quantity_refunded - (shipped.get(li.id) ?? 0));
  const [units, setUnits] = useState<Record<string, string>>({});
  const [carrier, setCarrier] = useState('');
  const [tracking, setTracking] = useState('');
  const [url, setUrl] = useState('');
  const ship = () =>
    act.run(async () => {
      const lines = order.line_items.map((li) => ({ line_item_id: li.id, quantity: Number(units[li.id] ?? left(li)) })).filter((l) => l.quantity > 0);
      const r = await api('POST', '/fulfillments', {
        order_id: order.id,
        line_items: lines,
        ...(carrier ? { carrier } : {}),
        ...(tracking ? { tracking_number: tracking } : {}),
        ...(url ? { tracking_url: url } : {}),
      });
      if (!r.ok) return act.setError(r.error);
      setUnits({});
      setCarrier('');
      setTracking('');
      setUrl('');
      onChange();
    });
  const canShip = order.status === 'paid' && c.may('fulfillment.create_fulfillment') && order.line_items.some((li) => left(li) > 0);
  return (
    <>
      <h2>Fulfilment</h2>
      <p>
        <span class="status">{order.fulfillment_status.replace('_', ' ')}</span>
      </p>
      {order.fulfillments.length > 0 && (
        <ResourceTable
          label="Shipments"
          rows={order.fulfillments}
          rowKey={(f) => f.id}
          columns={[
            { title: 'Shipped', cell: (f) => when(f.created_at) },
            { title: 'Units', num: true, cell: (f) => f.line_items.reduce((n, l) => n + l.quantity, 0) },
            { title: 'Carrier', cell: (f) => f.carrier ?? '—' },
            {
              title: 'Tracking',
              cell: (f) =>
                f.tracking_url ? (
                  <a href={f.tracking_url} rel="noopener noreferrer" target="_blank">
                    {f.tracking_number ?? 'track'}
                  </a>
                ) : (
                  (f.tracking_number ?? '—')
                ),
            },
          ]}
        />
      )}
      {canShip && (
        <div class="form">
          {order.line_items
            .filter((li) => left(li) > 0)
            .map((li) => (
              <Field
                key={li.id}
                label={`Units of ${li.name} to ship (${left(li)} left)`}
                type="number"
                min="0"
                max={String(left(li))}
                value={units[li.id] ?? String(left(li))}
                onValue={(v: string) => setUnits({ ...units, [li.id]: v })}
              />
            ))}
          <Field label="Carrier" value={carrier} onValue={setCarrier} />
          <Field label="Tracking number" value={tracking} onValue={setTracking} />
          <Field label="Tracking URL" type="url" value={url} onValue={setUrl} />
          <ErrorLine error={act.error} />
          <div class="buttons">
            <button class="primary" disabled={act.busy} onClick={ship}>
              Ship units
            </button>
          </div>
        </div>
      )}
    </>
  );
}
