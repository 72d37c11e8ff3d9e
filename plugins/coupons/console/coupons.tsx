import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  FilterForm,
  Notice,
  PageHeader,
  ResourceList,
  Select,
  Status,
  useAction,
  useConsole,
  useCursorList,
  when,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Coupon = Item<'/coupons'>;
type Kind = 'percent' | 'amount';
const blank = { code: '', kind: 'percent' as Kind, value: '', currency: '', minimum: '', limit: '', perCustomer: '', starts: '', ends: '' };

/** What a coupon shows in the list: deactivated, not yet started, ended, used up, or active. */
function statusOf(c: Coupon, now: number): [string, 'active' | 'pending' | 'inactive'] {
  if (!c.active) return ['inactive', 'inactive'];
  if (c.starts_at && Date.parse(c.starts_at) > now) return ['scheduled', 'pending'];
  if (c.ends_at && Date.parse(c.ends_at) <= now) return ['expired', 'inactive'];
  if (c.usage_limit !== null && c.times_redeemed >= c.usage_limit) return ['used up', 'inactive'];
  return ['active', 'active'];
}

const off = (c: Coupon) => (c.percent_off !== null ? `${c.percent_off}%` : `${(c.amount_off ?? 0).toFixed(2)} ${c.currency ?? ''}`);
/** A datetime-local field's value as an ISO instant (the browser's time zone), or nothing. */
const instant = (v: string) => (v ? new Date(v).toISOString() : undefined);
const num = (v: string) => (v.trim() === '' ? undefined : Number(v));

/** Coupons: the list with each one's status and use, a form for a new one, deactivation. */
export function CouponsPage() {
  const c = useConsole();
  const [active, setActive] = useState<'' | 'true' | 'false'>('');
  const list = useCursorList('/coupons', { active: active === '' ? undefined : active === 'true' });
  const [form, setForm] = useState(blank);
  const [created, setCreated] = useState('');
  const act = useAction();
  const set = (k: keyof typeof blank) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const create = (e: Event) => {
    e.preventDefault();
    act.run(async () => {
      const body: Body<'POST', '/coupons'> = {
        code: form.code.trim(),
        ...(form.kind === 'percent' ? { percent_off: num(form.value) } : { amount_off: num(form.value) }),
        currency: form.currency.trim().toUpperCase() || undefined,
        minimum_subtotal: num(form.minimum),
        usage_limit: num(form.limit),
        usage_limit_per_customer: num(form.perCustomer),
        starts_at: instant(form.starts),
        ends_at: instant(form.ends),
      };
      const r = await api('POST', '/coupons', body);
      if (!r.ok) return act.setError(r.error);
      setCreated(r.body.code);
      setForm(blank);
      await list.reload();
    });
  };
  const deactivate = (id: string) =>
    act.run(async () => {
      const r = await api('POST', `/coupons/${id}/deactivate`);
      if (!r.ok) return act.setError(r.error);
      await list.reload();
    });

  const now = Date.now();
  return (
    <>
      <PageHeader title="Coupons" />
      {c.may('coupons.create_coupon') && (
        <form class="card" aria-label="New coupon" onSubmit={create}>
          <h2>New coupon</h2>
          <Field label="Code" value={form.code} onValue={set('code')} required maxLength={50} />
          <Select<Kind>
            label="Discount"
            value={form.kind}
            onValue={set('kind')}
            options={[
              ['percent', 'Percent off'],
              ['amount', 'Amount off'],
            ]}
          />
          <Field
            label={form.kind === 'percent' ? 'Percent' : 'Amount'}
            type="number"
            step="any"
            min="0"
            value={form.value}
            onValue={set('value')}
            required
          />
          <Field
            label="Currency"
            value={form.currency}
            onValue={set('currency')}
            maxLength={3}
            hint="Needed with an amount off or a minimum subtotal, e.g. USD."
          />
          <Field label="Minimum subtotal" type="number" step="any" min="0" value={form.minimum} onValue={set('minimum')} />
          <Field label="Usage limit" type="number" min="1" value={form.limit} onValue={set('limit')} hint="Orders it may discount in all." />
          <Field label="Limit per customer" type="number" min="1" value={form.perCustomer} onValue={set('perCustomer')} />
          <Field label="Starts" type="datetime-local" value={form.starts} onValue={set('starts')} />
          <Field label="Ends" type="datetime-local" value={form.ends} onValue={set('ends')} />
          <button class="primary" type="submit" disabled={act.busy}>
            Create coupon
          </button>
        </form>
      )}
      {created && <Notice>Coupon {created} created.</Notice>}
      <ErrorLine error={act.error} />
      <FilterForm onSubmit={list.reload} submit="Filter">
        <Select
          label="Status"
          value={active}
          onValue={setActive}
          options={[
            ['', 'Any'],
            ['true', 'Active'],
            ['false', 'Deactivated'],
          ]}
        />
      </FilterForm>
      <ResourceList
        list={list}
        label="Coupons"
        empty="No coupons yet."
        columns={[
          { title: 'Code', cell: (x) => x.code },
          {
            title: 'Status',
            cell: (x) => {
              const [text, tone] = statusOf(x, now);
              return <Status status={text} tone={tone} />;
            },
          },
          { title: 'Off', cell: off },
          { title: 'Used', cell: (x) => (x.usage_limit === null ? `${x.times_redeemed}` : `${x.times_redeemed} of ${x.usage_limit}`) },
          { title: 'Ends', cell: (x) => (x.ends_at ? when(x.ends_at) : '') },
          { title: 'Created', cell: (x) => when(x.created_at) },
          {
            title: 'Actions',
            cell: (x) =>
              x.active &&
              c.may('coupons.deactivate') && (
                <button type="button" disabled={act.busy} aria-label={`Deactivate ${x.code}`} onClick={() => deactivate(x.id)}>
                  Deactivate
                </button>
              ),
          },
        ]}
      />
    </>
  );
}
