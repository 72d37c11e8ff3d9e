import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  PageHeader,
  ResourceTable,
  Select,
  useAction,
  useConsole,
  useResource,
  when,
  type Body,
  type Item,
} from '../../../console/src/kit';

type Key = Item<'/api-keys'>;

/** A few scopes in full; a long list folded behind its count. */
function Scopes({ list }: { list: string[] }) {
  if (list.length <= 3) return <>{list.join(' ')}</>;
  return (
    <details>
      <summary>{list.length} scopes</summary>
      {list.join(' ')}
    </details>
  );
}

const ROLL_WINDOWS: [string, string][] = [
  ['86400', 'in 24 hours'],
  ['3600', 'in 1 hour'],
  ['604800', 'in 7 days'],
  ['0', 'now'],
];

/** What a key may do: its scopes, or for a widget's publishable key the origins it chats from. */
function Rights({ k }: { k: Key }) {
  if (k.kind === 'publishable') return <>widget: {(k.allowed_origins ?? []).join(' ')}</>;
  return <Scopes list={k.scopes} />;
}

/** The tag a shop adds to its pages, with the agent's id left for the owner to fill in. */
const embedTag = (storeId: string, key: string) =>
  `<script src="${location.origin}/widget.js" data-store="${storeId}" data-agent="AGENT_ID" data-key="${key}" async></script>`;

/**
 * Settings → API keys: create (the secret is shown once, here, and never again), roll (a new
 * secret; the old one keeps working for the window chosen), revoke; and the webchat widget's
 * publishable keys, made for the shop's origins (README, "Webchat widget").
 */
export function ApiKeysPage() {
  const c = useConsole();
  const listed = useResource('/api-keys');
  const keys = listed.data?.data;
  const load = listed.reload;
  const [fresh, setFresh] = useState<{ key: string; note: string; embed?: string } | null>(null);
  const [origins, setOrigins] = useState('');
  const [scopes, setScopes] = useState('');
  const [live, setLive] = useState('false');
  const [window, setWindow] = useState('86400');
  const act = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      // Typed by hand, checked by the server: an unknown scope is its 400, naming it.
      const list = scopes.split(/[\s,]+/).filter(Boolean) as NonNullable<Body<'POST', '/api-keys'>['scopes']>;
      const r = await api('POST', '/api-keys', { scopes: list.length ? list : undefined, livemode: live === 'true' });
      if (!r.ok) return act.setError(r.error);
      setFresh({ key: r.body.key!, note: 'New key created.' });
      setScopes('');
      await load();
    });
  };
  const createPublishable = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const list = origins.split(/[\s,]+/).filter(Boolean);
      const r = await api('POST', '/api-keys/publishable', { allowed_origins: list });
      if (!r.ok) return act.setError(r.error);
      setFresh({ key: r.body.key!, note: 'New widget key created.', embed: embedTag(c.store.id, r.body.key!) });
      setOrigins('');
      await load();
    });
  };
  const roll = (k: Key) =>
    act.run(async () => {
      const r = await api('POST', `/api-keys/${k.id}/roll`, { expires_in: Number(window) });
      if (!r.ok) return act.setError(r.error);
      setFresh({ key: r.body.key!, note: `Key ${k.key_prefix}… rolled; the old secret works until ${when(r.body.rolled?.expires_at)}.` });
      await load();
    });
  const revoke = (k: Key) =>
    act.run(async () => {
      if (!confirm(`Revoke the key ${k.key_prefix}…? Everything using it stops working now.`)) return;
      const r = await api('DELETE', `/api-keys/${k.id}`);
      if (!r.ok) return act.setError(r.error);
      await load();
    });

  return (
    <>
      <PageHeader title="API keys" />
      {fresh && (
        <div class="secret" role="status">
          <p>{fresh.note} Copy the secret now: it is not shown again.</p>
          <label>
            <span class="visually-hidden">New secret</span>
            <input readOnly value={fresh.key} class="mono" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          </label>
          {fresh.embed && (
            <label>
              <span>Add this tag to the shop's pages, with the id of an agent that has the webchat channel:</span>
              <textarea readOnly rows={3} class="mono" value={fresh.embed} />
            </label>
          )}
          <button onClick={() => setFresh(null)}>Done</button>
        </div>
      )}
      <ErrorLine error={act.error ?? listed.error} />
      {keys && (
        <ResourceTable
          label="API keys"
          rows={keys}
          columns={[
            { title: 'Key', class: 'mono', cell: (k) => `${k.key_prefix}…` },
            { title: 'Scopes', class: 'scopes', cell: (k) => <Rights k={k} /> },
            { title: 'Expires', cell: (k) => (k.expires_at ? when(k.expires_at) : 'never') },
            {
              title: 'Actions',
              class: 'row-actions',
              cell: (k) => (
                <>
                  {k.kind !== 'publishable' && (
                    <button onClick={() => roll(k)} disabled={act.busy} aria-label={`Roll ${k.key_prefix}`}>
                      Roll
                    </button>
                  )}
                  <button class="danger" onClick={() => revoke(k)} disabled={act.busy} aria-label={`Revoke ${k.key_prefix}`}>
                    Revoke
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
      <Select label="When rolling, the old secret stops working" value={window} onValue={setWindow} options={ROLL_WINDOWS} />
      <h2>New key</h2>
      <form class="form" onSubmit={create}>
        <Field
          label="Scopes"
          value={scopes}
          onValue={setScopes}
          hint={`Space-separated, e.g. products:read orders:read. Empty: all of yours (${c.role}).`}
        />
        <Select
          label="Mode"
          value={live}
          onValue={setLive}
          options={[
            ['false', 'Test (svc_test_)'],
            ['true', 'Live (svc_live_)'],
          ]}
        />
        <button class="primary" type="submit" disabled={act.busy}>
          Create key
        </button>
      </form>
      <h2>New widget key</h2>
      <form class="form" onSubmit={createPublishable}>
        <Field
          label="Allowed origins"
          value={origins}
          onValue={setOrigins}
          required
          hint="The shop's origins, space-separated, e.g. https://shop.example.com. The key is public: it only opens chats with webchat agents, from these origins."
        />
        <button class="primary" type="submit" disabled={act.busy}>
          Create widget key
        </button>
      </form>
    </>
  );
}
