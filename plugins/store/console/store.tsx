import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Notice, PageHeader, useAction, useConsole, useResource, type Resource } from '../../../console/src/kit';

type StoreInfo = Resource<'/store'>;
const FIELDS = {
  name: '',
  currency: '',
  timezone: '',
  contact_email: '',
  website_url: '',
  order_number_prefix: '',
  invoice_prefix: '',
  prices_include_tax: false,
  line1: '',
  line2: '',
  city: '',
  region: '',
  postal_code: '',
  country: '',
};
type Form = typeof FIELDS;

const formOf = (s: StoreInfo): Form => ({
  name: s.name,
  currency: s.settings.currency,
  timezone: s.settings.timezone,
  contact_email: s.settings.contact_email ?? '',
  website_url: s.settings.website_url ?? '',
  order_number_prefix: s.settings.order_number_prefix,
  invoice_prefix: s.settings.invoice_prefix,
  prices_include_tax: s.settings.prices_include_tax,
  line1: s.settings.address?.line1 ?? '',
  line2: s.settings.address?.line2 ?? '',
  city: s.settings.address?.city ?? '',
  region: s.settings.address?.region ?? '',
  postal_code: s.settings.address?.postal_code ?? '',
  country: s.settings.address?.country ?? '',
});

/** Settings → Store: the store's name and settings (editable with update_settings), its plan, and the user's role. */
export function StorePage() {
  const c = useConsole();
  const store = useResource('/store');
  const act = useAction();
  const [form, setForm] = useState<Form>(FIELDS);
  const [saved, setSaved] = useState(false);
  useEffect(() => void (store.data && setForm(formOf(store.data))), [store.data]);
  const canEdit = c.may('store.update_settings');
  const set =
    <K extends keyof Form>(k: K) =>
    (v: Form[K]) => (setForm((f) => ({ ...f, [k]: v })), setSaved(false));
  const opt = (v: string) => v.trim() || undefined;

  const save = () =>
    act.run(async () => {
      const f = form;
      const address =
        f.line1 || f.city || f.country
          ? { line1: f.line1, line2: opt(f.line2), city: f.city, region: opt(f.region), postal_code: opt(f.postal_code), country: f.country }
          : null;
      const r = await api('PATCH', '/settings', {
        name: f.name,
        currency: f.currency,
        timezone: f.timezone,
        contact_email: opt(f.contact_email) ?? null,
        website_url: opt(f.website_url) ?? null,
        order_number_prefix: f.order_number_prefix,
        invoice_prefix: f.invoice_prefix,
        prices_include_tax: f.prices_include_tax,
        address,
      });
      if (!r.ok) return act.setError(r.error);
      store.setData(r.body);
      setSaved(true);
    });

  const text = (label: string, k: Exclude<keyof Form, 'prices_include_tax'>, hint?: string) => (
    <Field label={label} value={form[k]} onValue={set(k)} hint={hint} disabled={!canEdit} />
  );
  return (
    <>
      <PageHeader title="Store" />
      <ErrorLine error={store.error ?? act.error} />
      <dl class="facts">
        <dt>Name</dt>
        <dd>{store.data?.name ?? c.store.name}</dd>
        <dt>Id</dt>
        <dd>
          <code>{c.store.id}</code>
        </dd>
        {store.data && (
          <>
            <dt>Plan</dt>
            <dd>{store.data.plan}</dd>
          </>
        )}
        <dt>Your role</dt>
        <dd>{c.role}</dd>
        <dt>Your scopes</dt>
        <dd class="scopes">{c.scopes.join(' ')}</dd>
      </dl>
      {store.data && (
        <form
          class="editor"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2>Settings</h2>
          {text('Name', 'name')}
          {text('Currency', 'currency', 'ISO 4217, e.g. EUR: new products default to it.')}
          {text('Time zone', 'timezone', 'IANA, e.g. Europe/Berlin: date ranges in reports use it.')}
          {text('Contact email', 'contact_email')}
          {text('Website', 'website_url')}
          {text('Order number prefix', 'order_number_prefix')}
          {text('Invoice prefix', 'invoice_prefix', 'e.g. INV-: invoices are numbered INV-000001 on.')}
          <div class="field">
            <label>
              <input
                type="checkbox"
                checked={form.prices_include_tax}
                disabled={!canEdit}
                onChange={(e) => set('prices_include_tax')((e.target as HTMLInputElement).checked)}
              />{' '}
              Prices include tax
            </label>
          </div>
          <h2>Address</h2>
          {text('Street', 'line1')}
          {text('Line 2', 'line2')}
          {text('City', 'city')}
          {text('Region', 'region')}
          {text('Postal code', 'postal_code')}
          {text('Country', 'country', 'Two letters, e.g. DE.')}
          {canEdit && (
            <button class="primary" type="submit" disabled={act.busy}>
              Save
            </button>
          )}
          {saved && <Notice>Saved.</Notice>}
        </form>
      )}
    </>
  );
}
