import { useState } from 'preact/hooks';
import {
  api,
  apiDataUrl,
  ErrorLine,
  FilterForm,
  PageHeader,
  ResourceList,
  Select,
  Status,
  useAction,
  useConsole,
  useCursorList,
  valuesOf,
  when,
  type Query,
} from '../../../console/src/kit';

type StatusFilter = NonNullable<Query<'/invoices'>['status']>;
const STATUSES = valuesOf<StatusFilter>({ open: true, paid: true });

/** Invoices: number, status, amounts; the PDF opens in a new tab; an open one can be marked paid. */
export function InvoicesPage() {
  const c = useConsole();
  const [status, setStatus] = useState<StatusFilter | ''>('');
  const list = useCursorList('/invoices', { status: status || undefined });
  const act = useAction();
  const money = (n: number, cur: string) => `${n.toFixed(2)} ${cur}`;

  // The PDF needs the console's credential, which a plain link would not carry: fetch it, then open it.
  const openPdf = (id: string, number: string) =>
    act.run(async () => {
      const url = await apiDataUrl(`/invoices/${id}/pdf`);
      // Decoded here: the console's CSP lets it fetch only its own origin, not a data: URL.
      const bin = atob(url.slice(url.indexOf(',') + 1));
      const blob = new Blob([Uint8Array.from(bin, (ch) => ch.charCodeAt(0))], { type: 'application/pdf' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${number}.pdf`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    });
  const markPaid = (id: string) =>
    act.run(async () => {
      const r = await api('POST', `/invoices/${id}/mark_paid`);
      if (!r.ok) return act.setError(r.error);
      await list.reload();
    });

  return (
    <>
      <PageHeader title="Invoices" />
      <FilterForm onSubmit={list.reload} submit="Filter">
        <Select
          label="Status"
          value={status}
          onValue={(v) => setStatus(v as StatusFilter | '')}
          options={[['', 'Any'], ...STATUSES.map((s): [StatusFilter, string] => [s, s])]}
        />
      </FilterForm>
      <ErrorLine error={act.error} />
      <ResourceList
        list={list}
        label="Invoices"
        empty="No invoices yet."
        columns={[
          { title: 'Number', cell: (i) => i.number },
          { title: 'Status', cell: (i) => <Status status={i.status} tone={i.status === 'paid' ? 'active' : 'pending'} /> },
          { title: 'Bill to', cell: (i) => i.bill_to.name ?? i.bill_to.email ?? '' },
          { title: 'Total', cell: (i) => money(i.total, i.currency) },
          { title: 'Due', cell: (i) => money(i.amount_due, i.currency) },
          { title: 'Created', cell: (i) => when(i.created_at) },
          {
            title: 'Actions',
            cell: (i) => (
              <>
                {c.may('invoices.get_invoice_pdf') && (
                  <button type="button" disabled={act.busy} onClick={() => openPdf(i.id, i.number)}>
                    PDF
                  </button>
                )}{' '}
                {i.status === 'open' && c.may('invoices.mark_paid') && (
                  <button type="button" disabled={act.busy} onClick={() => markPaid(i.id)}>
                    Mark paid
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
