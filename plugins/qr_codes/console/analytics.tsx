import { useEffect, useState } from 'preact/hooks';
import { api, BarChart, ColumnChart, ErrorLine, FilterForm, Field, PageHeader, query, useConsole, type Resource } from '../../../console/src/kit';

type Analytics = Resource<'/qr-codes/{code}/analytics'> | Resource<'/qr-campaigns/{campaign_name}/analytics'>;

/**
 * QR analytics (issue 29): scans by day, device and city as charts, for one code
 * (`#/qr-analytics/code/<code>`) or a campaign (`#/qr-analytics/campaign/<name>`).
 */
export function QrAnalyticsPage() {
  const c = useConsole();
  const [kind, ...rest] = (c.arg ?? '').split('/');
  const name = rest.join('/');
  return (kind === 'code' || kind === 'campaign') && name ? <Report kind={kind} name={name} /> : <Pick />;
}

function Pick() {
  const c = useConsole();
  const [campaign, setCampaign] = useState('');
  const [code, setCode] = useState('');
  return (
    <>
      <PageHeader title="QR analytics" />
      <p>Open a code's analytics from its scan count on the QR codes page, or name a campaign or a code here.</p>
      <FilterForm
        search={false}
        submit="Show"
        onSubmit={() => {
          if (campaign.trim()) c.go(`qr-analytics/campaign/${encodeURIComponent(campaign.trim())}`);
          else if (code.trim()) c.go(`qr-analytics/code/${encodeURIComponent(code.trim())}`);
        }}
      >
        <Field label="Campaign" value={campaign} onValue={setCampaign} />
        <Field label="or code" value={code} onValue={setCode} />
      </FilterForm>
    </>
  );
}

function Report({ kind, name }: { kind: 'code' | 'campaign'; name: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [data, setData] = useState<Analytics | null>(null);
  const [error, setError] = useState<any>(null);
  const path =
    kind === 'code' ? (`/qr-codes/${encodeURIComponent(name)}/analytics` as const) : (`/qr-campaigns/${encodeURIComponent(name)}/analytics` as const);
  const load = async () => {
    const r = await api('GET', `${path}${query({ from, to })}`);
    if (!r.ok) return setError(r.error);
    setError(null);
    setData(r.body);
  };
  useEffect(() => void load(), [path]);
  return (
    <>
      <PageHeader title={kind === 'code' ? `Analytics of ${name}` : `Campaign ${name}`}>
        {kind === 'code' ? <a href={`#/qr-codes/${encodeURIComponent(name)}`}>Back to the code</a> : <a href="#/qr-codes">Back to QR codes</a>}
      </PageHeader>
      <FilterForm search={false} submit="Update" onSubmit={load}>
        <Field label="From" type="date" value={from} onValue={setFrom} />
        <Field label="To" type="date" value={to} onValue={setTo} />
      </FilterForm>
      <ErrorLine error={error} />
      {data && (
        <>
          <dl class="facts totals">
            <dt>Scans</dt>
            <dd data-testid="total-scans">{data.total_scans}</dd>
            <dt>Unique scans</dt>
            <dd>{data.unique_scans}</dd>
            <dt>Conversions</dt>
            <dd>
              {data.conversions} ({(data.conversion_rate * 100).toFixed(1)}%)
            </dd>
            <dt>Days</dt>
            <dd>
              {data.from} to {data.to}
            </dd>
          </dl>
          <div class="charts">
            <ColumnChart title="Scans by day" unit="scans" rows={data.by_day.map((d) => [d.date, d.scans])} />
            {/* Counts by name: the schema's patternProperties, which the generated types read as unknown. */}
            <BarChart title="Scans by device" unit="scans" rows={Object.entries(data.by_device) as [string, number][]} />
            <BarChart title="Scans by city" unit="scans" rows={Object.entries(data.by_city) as [string, number][]} />
          </div>
        </>
      )}
    </>
  );
}
