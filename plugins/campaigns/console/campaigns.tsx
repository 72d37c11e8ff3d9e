import { useEffect, useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  ResourceList,
  ResourceTable,
  Select,
  Status,
  useAction,
  useConsole,
  useCursorList,
  useResource,
  when,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Campaign = Item<'/campaigns'>;
const blank = { name: '', segment: '', template: '', when: 'now' as 'now' | 'later', at: '', rate: '', window: '' };
const tone = (s: Campaign['status']) => (s === 'sent' ? 'active' : s === 'sending' || s === 'scheduled' ? 'pending' : 'inactive');
const num = (v: string) => (v.trim() === '' ? undefined : Number(v));

/** Campaigns: the list with progress and pause/resume/cancel, a form for a new one, live metrics (#/campaigns/<id>). */
export function CampaignsPage() {
  const c = useConsole();
  return c.arg ? <CampaignView id={c.arg} /> : <CampaignList />;
}

/** pause, resume or cancel, shown only when the API would take it. */
function useControls(after: () => Promise<void> | void) {
  const c = useConsole();
  const act = useAction();
  const run = (id: string, what: 'pause' | 'resume' | 'cancel') =>
    act.run(async () => {
      const r = await api('POST', `/campaigns/${id}/${what}`);
      if (!r.ok) return act.setError(r.error);
      await after();
    });
  const buttons = (x: Campaign) => (
    <>
      {(x.status === 'scheduled' || x.status === 'sending') && c.may('campaigns.pause') && (
        <button type="button" disabled={act.busy} aria-label={`Pause ${x.name}`} onClick={() => run(x.id, 'pause')}>
          Pause
        </button>
      )}
      {x.status === 'paused' && c.may('campaigns.resume') && (
        <button type="button" disabled={act.busy} aria-label={`Resume ${x.name}`} onClick={() => run(x.id, 'resume')}>
          Resume
        </button>
      )}
      {x.status !== 'sent' && x.status !== 'cancelled' && c.may('campaigns.cancel_campaign') && (
        <button type="button" disabled={act.busy} aria-label={`Cancel ${x.name}`} onClick={() => run(x.id, 'cancel')}>
          Cancel
        </button>
      )}
    </>
  );
  return { buttons, error: act.error };
}

function CampaignList() {
  const c = useConsole();
  const list = useCursorList('/campaigns');
  const controls = useControls(() => list.reload());
  const [form, setForm] = useState(blank);
  const [created, setCreated] = useState('');
  const act = useAction();
  const set = (k: keyof typeof blank) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  // The choices: the store's segments and its marketing templates (a campaign sends nothing else).
  const [segments, setSegments] = useState<[string, string][]>([]);
  const [templates, setTemplates] = useState<[string, string][]>([]);
  const creating = c.may('campaigns.create_campaign');
  useEffect(() => {
    if (!creating) return;
    void api('GET', '/segments?limit=100').then((r) => r.ok && setSegments(r.body.data.map((s) => [s.id, s.name] as [string, string])));
    void api('GET', '/email/templates?limit=100').then(
      (r) => r.ok && setTemplates(r.body.data.filter((t) => t.category === 'marketing').map((t) => [t.id, t.name] as [string, string])),
    );
  }, [creating]);

  const create = (e: Event) => {
    e.preventDefault();
    act.run(async () => {
      const body: Body<'POST', '/campaigns'> = {
        name: form.name.trim(),
        segment_id: form.segment || segments[0]?.[0] || '',
        template_id: form.template || templates[0]?.[0] || '',
        ...(form.when === 'now' ? { send_now: true } : { send_at: form.at ? new Date(form.at).toISOString() : '' }),
        send_rate_per_minute: num(form.rate),
        conversion_window_days: num(form.window),
      };
      const r = await api('POST', '/campaigns', body);
      if (!r.ok) return act.setError(r.error);
      setCreated(r.body.name);
      setForm(blank);
      await list.reload();
    });
  };

  return (
    <>
      <PageHeader title="Campaigns" />
      {creating && (
        <form class="card" aria-label="New campaign" onSubmit={create}>
          <h2>New campaign</h2>
          <Field label="Name" value={form.name} onValue={set('name')} required maxLength={200} />
          <Select
            label="Segment"
            value={form.segment || segments[0]?.[0] || ''}
            onValue={set('segment')}
            options={segments.length ? segments : [['', 'No segments yet']]}
          />
          <Select
            label="Template"
            value={form.template || templates[0]?.[0] || ''}
            onValue={set('template')}
            options={templates.length ? templates : [['', 'No marketing templates yet']]}
          />
          <Select<'now' | 'later'>
            label="Send"
            value={form.when}
            onValue={set('when')}
            options={[
              ['now', 'Now'],
              ['later', 'At a time'],
            ]}
          />
          {form.when === 'later' && <Field label="Send at" type="datetime-local" value={form.at} onValue={set('at')} required />}
          <Field
            label="Messages per minute"
            type="number"
            min="1"
            value={form.rate}
            onValue={set('rate')}
            hint="Default 600, within the plan's hourly limit."
          />
          <Field label="Conversion window (days)" type="number" min="1" max="90" value={form.window} onValue={set('window')} hint="Default 5." />
          <button class="primary" type="submit" disabled={act.busy}>
            Create campaign
          </button>
        </form>
      )}
      {created && <Notice>Campaign {created} created.</Notice>}
      <ErrorLine error={act.error ?? controls.error} />
      <ResourceList
        list={list}
        label="Campaigns"
        empty="No campaigns yet."
        columns={[
          { title: 'Name', cell: (x) => <a href={`#/campaigns/${x.id}`}>{x.name}</a> },
          { title: 'Status', cell: (x) => <Status status={x.status} tone={tone(x.status)} /> },
          { title: 'Sent', num: true, cell: (x) => (x.recipients.total ? `${x.recipients.sent} of ${x.recipients.total}` : '—') },
          { title: 'Send at', cell: (x) => when(x.send_at) },
          { title: 'Actions', cell: controls.buttons },
        ]}
      />
    </>
  );
}

const METRICS = ['recipients', 'sent', 'skipped', 'delivered', 'opened', 'clicked', 'bounced', 'unsubscribed', 'conversions'] as const;

/** One campaign: its state and figures, read again every few seconds while it may still change. */
function CampaignView({ id }: { id: string }) {
  const campaign = useResource(`/campaigns/${id}`);
  const metrics = useResource(`/campaigns/${id}/metrics`);
  const reload = async () => void (await Promise.all([campaign.reload(), metrics.reload()]));
  const controls = useControls(reload);
  useEffect(() => {
    const t = setInterval(() => void reload(), 5000);
    return () => clearInterval(t);
  }, [id]);
  const x = campaign.data;
  const m = metrics.data;
  return (
    <>
      <PageHeader title={x ? x.name : 'Campaign'}>
        <a class="button" href="#/campaigns">
          All campaigns
        </a>
      </PageHeader>
      <ErrorLine error={campaign.error ?? metrics.error ?? controls.error} />
      {x && (
        <section class="card" aria-label="Campaign">
          <p>
            <Status status={x.status} tone={tone(x.status)} /> Send at {when(x.send_at)}, {x.send_rate_per_minute} a minute; conversions within{' '}
            {x.conversion_window_days} days of an open or click.
          </p>
          {x.last_error && <p role="alert">Stopped: {x.last_error.message}</p>}
          {controls.buttons(x)}
        </section>
      )}
      {m && (
        <>
          <h2>Metrics</h2>
          <ResourceTable
            label="Metrics"
            rowKey={(r) => r.name}
            rows={[
              ...METRICS.map((k) => ({ name: k, value: String(m[k]) })),
              { name: 'conversion revenue', value: `${m.conversion_revenue.toFixed(2)} ${m.currency}` },
            ]}
            columns={[
              { title: 'Figure', cell: (r) => r.name },
              { title: 'Value', num: true, cell: (r) => r.value },
            ]}
          />
          <p>
            Delivery {m.rates.delivery}%, open {m.rates.open}%, click {m.rates.click}%, conversion {m.rates.conversion}%.
          </p>
        </>
      )}
    </>
  );
}
