import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  ResourceTable,
  useAction,
  useConsole,
  useResource,
  when,
  type Answer,
  type Body,
} from '../../../console/src/kit';

/** Webhooks (SPEC 2.7, 6.1): endpoints, and per endpoint its delivery log with every attempt; resend one, replay the failed. */
export function WebhooksPage() {
  const c = useConsole();
  return c.arg ? <Deliveries id={c.arg} /> : <Endpoints />;
}

function Endpoints() {
  const c = useConsole();
  const listed = useResource('/webhooks');
  const list = listed.data?.data;
  const load = listed.reload;
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('order.created order.paid');
  const [secret, setSecret] = useState<string | null>(null);
  const act = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      // Typed by hand, checked by the server: an unknown event type is its 400, naming it.
      const types = events.split(/[\s,]+/).filter(Boolean) as Body<'POST', '/webhooks'>['events'];
      const r = await api('POST', '/webhooks', { url, events: types });
      if (!r.ok) return act.setError(r.error);
      setSecret(r.body.signing_secret ?? null);
      setUrl('');
      await load();
    });
  };
  return (
    <>
      <PageHeader title="Webhooks" />
      {secret && (
        <div class="secret" role="status">
          <p>Endpoint created. Its signing secret (shown once):</p>
          <label>
            <span class="visually-hidden">Signing secret</span>
            <input readOnly class="mono" value={secret} />
          </label>
        </div>
      )}
      <ErrorLine error={act.error ?? listed.error} />
      {list && list.length === 0 && <p class="empty">No endpoints.</p>}
      {list && list.length > 0 && (
        <ResourceTable
          label="Webhook endpoints"
          rows={list}
          columns={[
            {
              title: 'URL',
              cell: (w) => (
                <>
                  <a href={`#/webhooks/${w.id}`}>{w.url}</a>
                  {!w.is_active && <div class="sub">disabled</div>}
                </>
              ),
            },
            { title: 'Events', class: 'scopes', cell: (w) => w.events.join(' ') },
            { title: 'Delivered', num: true, cell: (w) => w.total_delivered },
            { title: 'Failed', num: true, cell: (w) => w.total_failed },
          ]}
        />
      )}
      {c.may('webhooks_mgmt.create_webhook') && (
        <>
          <h2>New endpoint</h2>
          <form class="form" onSubmit={create}>
            <Field label="URL (https)" type="url" value={url} onValue={setUrl} required />
            <Field label="Events" value={events} onValue={setEvents} hint="Space-separated event types, e.g. order.created product.updated." />
            <button class="primary" type="submit" disabled={act.busy}>
              Add endpoint
            </button>
          </form>
        </>
      )}
    </>
  );
}

/** The body as sent, indented when it is JSON (it always is; a stored body is shown as it is otherwise). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Deliveries({ id }: { id: string }) {
  const c = useConsole();
  const at = `/webhooks/${encodeURIComponent(id)}` as const;
  const endpoint = useResource(at).data;
  const listed = useResource(`${at}/deliveries`);
  const list = listed.data?.data;
  const load = listed.reload;
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  const writable = c.may('webhooks_mgmt.resend_delivery');
  const post = (send: () => Promise<Answer<unknown>>, done: string) =>
    act.run(async () => {
      const r = await send();
      if (!r.ok) return act.setError(r.error);
      setNote(done);
      await load();
    });
  return (
    <>
      <PageHeader title="Deliveries">
        <a href="#/webhooks">Back to webhooks</a>
      </PageHeader>
      {endpoint && <p class="mono wrap">{endpoint.url}</p>}
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={act.error ?? listed.error} />
      {writable && (
        <div class="buttons">
          <button disabled={act.busy} onClick={() => post(() => api('POST', `${at}/test`, {}), 'Test ping sent.')}>
            Send a test ping
          </button>
          <button disabled={act.busy} onClick={() => post(() => api('POST', `${at}/replay-failed`, {}), 'Failed deliveries queued again.')}>
            Replay failed deliveries
          </button>
        </div>
      )}
      {list && list.length === 0 && <p class="empty">No deliveries yet.</p>}
      <ul class="cards" aria-label="Deliveries">
        {list?.map((d) => (
          <li class="card" key={d.id} aria-labelledby={`delivery-${d.id}`}>
            <h2 id={`delivery-${d.id}`}>
              {d.event_type}{' '}
              <span class={`status s-${d.status === 'succeeded' ? 'success' : d.status === 'failed' ? 'error' : 'pending_approval'}`}>
                {d.status}
              </span>
            </h2>
            <p class="sub">
              {when(d.created_at)} · {d.attempt} attempt{d.attempt === 1 ? '' : 's'}
            </p>
            <details>
              <summary>Request (the same body on every attempt)</summary>
              <p class="mono wrap">POST {endpoint?.url ?? ''}</p>
              <pre class="json" tabIndex={0}>
                {d.request_body == null ? '(no longer kept)' : pretty(d.request_body)}
              </pre>
            </details>
            {d.attempts.length > 0 && (
              <details open={d.status === 'failed'}>
                <summary>Attempts and responses</summary>
                <ResourceTable
                  label={`Attempts of ${d.event_type} ${d.id.slice(0, 8)}`}
                  rows={d.attempts}
                  rowKey={(a) => String(a.attempt)}
                  columns={[
                    { title: '#', num: true, cell: (a) => a.attempt },
                    { title: 'Status', cell: (a) => (a.status_code == null ? '—' : a.status_code) },
                    { title: 'Response', class: 'wrap response', cell: (a) => a.response ?? a.error ?? '' },
                    { title: 'Time', num: true, cell: (a) => `${a.duration_ms} ms` },
                    { title: 'When', cell: (a) => when(a.created_at) },
                  ]}
                />
              </details>
            )}
            {writable && (
              <button disabled={act.busy} onClick={() => post(() => api('POST', `${at}/deliveries/${d.id}/resend`, {}), 'Delivery sent again.')}>
                Resend
              </button>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
