import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  FilterForm,
  Notice,
  PageHeader,
  ResourceList,
  useAction,
  useConsole,
  useCursorList,
  when,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Rate = Item<'/tax/rates'>;
const blank = { name: '', country: '', region: '', postal: '', percentage: '', tax_class: '' };
const formOf = (r: Rate) => ({
  name: r.name,
  country: r.country,
  region: r.region ?? '',
  postal: r.postal_code_prefix ?? '',
  percentage: String(r.percentage),
  tax_class: r.tax_class,
});

/** Tax rates: the list (by country), one form to create a rate or edit the one chosen, delete. */
export function TaxRatesPage() {
  const c = useConsole();
  const [country, setCountry] = useState('');
  const list = useCursorList('/tax/rates', { country: country.trim().toUpperCase() || undefined });
  const [editing, setEditing] = useState<Rate | null>(null);
  const [form, setForm] = useState(blank);
  const [saved, setSaved] = useState('');
  const act = useAction();
  const set = (k: keyof typeof blank) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const canWrite = editing ? c.may('tax.update_rate') : c.may('tax.create_rate');

  const save = (e: Event) => {
    e.preventDefault();
    act.run(async () => {
      const body: Body<'POST', '/tax/rates'> = {
        name: form.name.trim(),
        country: form.country.trim().toUpperCase(),
        percentage: Number(form.percentage),
        ...(form.tax_class.trim() ? { tax_class: form.tax_class.trim() } : {}),
      };
      const region = form.region.trim();
      const postal = form.postal.trim();
      const r = editing
        ? // An edit clears a region or prefix left empty (null), where a new rate simply has none.
          await api('PATCH', `/tax/rates/${editing.id}`, { ...body, region: region || null, postal_code_prefix: postal || null })
        : await api('POST', '/tax/rates', { ...body, region: region || undefined, postal_code_prefix: postal || undefined });
      if (!r.ok) return act.setError(r.error);
      setSaved(`${r.body.name} saved.`);
      setEditing(null);
      setForm(blank);
      await list.reload();
    });
  };
  const remove = (r: Rate) =>
    act.run(async () => {
      const res = await api('DELETE', `/tax/rates/${r.id}`);
      if (!res.ok) return act.setError(res.error);
      setSaved(`${r.name} deleted.`);
      if (editing?.id === r.id) (setEditing(null), setForm(blank));
      await list.reload();
    });
  const edit = (r: Rate) => {
    setEditing(r);
    setForm(formOf(r));
    setSaved('');
  };

  return (
    <>
      <PageHeader title="Tax rates" />
      {canWrite && (
        <form class="card" aria-label={editing ? 'Edit tax rate' : 'New tax rate'} onSubmit={save}>
          <h2>{editing ? `Edit ${editing.name}` : 'New tax rate'}</h2>
          <Field label="Name" value={form.name} onValue={set('name')} required maxLength={100} />
          <Field label="Country" value={form.country} onValue={set('country')} required maxLength={2} hint="Two letters, e.g. US." />
          <Field label="Region" value={form.region} onValue={set('region')} maxLength={100} hint="State or province, e.g. CA." />
          <Field label="Postal code prefix" value={form.postal} onValue={set('postal')} maxLength={16} />
          <Field label="Percentage" type="number" step="any" min="0" max="100" value={form.percentage} onValue={set('percentage')} required />
          <Field label="Tax class" value={form.tax_class} onValue={set('tax_class')} maxLength={50} hint="Default standard." />
          <button class="primary" type="submit" disabled={act.busy}>
            {editing ? 'Save rate' : 'Create rate'}
          </button>{' '}
          {editing && (
            <button type="button" onClick={() => (setEditing(null), setForm(blank))}>
              Cancel
            </button>
          )}
        </form>
      )}
      {saved && <Notice>{saved}</Notice>}
      <ErrorLine error={act.error} />
      <FilterForm onSubmit={list.reload} submit="Filter">
        <Field label="Filter by country" value={country} onValue={setCountry} maxLength={2} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Tax rates"
        empty="No tax rates yet."
        columns={[
          { title: 'Name', cell: (r) => r.name },
          { title: 'Where', cell: (r) => [r.country, r.region, r.postal_code_prefix].filter(Boolean).join(' · ') },
          { title: 'Rate', cell: (r) => `${r.percentage}%` },
          { title: 'Class', cell: (r) => r.tax_class },
          { title: 'Updated', cell: (r) => when(r.updated_at) },
          {
            title: 'Actions',
            cell: (r) => (
              <>
                {c.may('tax.update_rate') && (
                  <button type="button" aria-label={`Edit ${r.name}`} onClick={() => edit(r)}>
                    Edit
                  </button>
                )}{' '}
                {c.may('tax.delete_rate') && (
                  <button type="button" disabled={act.busy} aria-label={`Delete ${r.name}`} onClick={() => remove(r)}>
                    Delete
                  </button>
                )}
              </>
            ),
          },
        ]}
      />
    </>
  );
}
