import { useEffect, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Notice, PageHeader, Select, useAction, useConsole, useResource } from '../../../console/src/kit';

const FORM = {
  hostnames: '',
  ucp_enabled: false,
  allowed_profiles: '',
  require_signatures: false,
  acp_enabled: false,
  webhook_url: '',
  webhook_secret: '',
  adapter: 'manual' as 'manual' | 'stripe',
  manual_mode: 'pending' as 'pending' | 'escalate',
  continue_url: '',
  stripe_api_key: '',
};
type Form = typeof FORM;

const lines = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * Settings → Agentic commerce: where shopping agents find the store (its hostnames), whether UCP
 * and ACP agents may buy, ACP's order webhook, and how agent orders are paid. Secrets are
 * write-only: the page shows whether one is set and sends a new one only when typed.
 */
export function AgenticPage() {
  const c = useConsole();
  const settings = useResource('/agentic');
  const store = useResource('/store');
  const act = useAction();
  const [form, setForm] = useState<Form>(FORM);
  const [saved, setSaved] = useState(false);
  const canEdit = c.may('agentic.update_agentic_settings');
  useEffect(() => {
    const s = settings.data;
    if (!s) return;
    setForm((f) => ({
      ...f,
      ucp_enabled: s.ucp.enabled,
      allowed_profiles: s.ucp.allowed_profiles.join(', '),
      require_signatures: s.ucp.require_signatures,
      acp_enabled: s.acp.enabled,
      webhook_url: s.acp.webhook_url ?? '',
      adapter: s.payments.adapter === 'stripe' ? 'stripe' : 'manual',
      manual_mode: s.payments.manual_mode === 'escalate' ? 'escalate' : 'pending',
      continue_url: s.payments.continue_url ?? '',
    }));
  }, [settings.data]);
  useEffect(() => void (store.data && setForm((f) => ({ ...f, hostnames: store.data!.settings.hostnames.join(', ') }))), [store.data]);
  const set =
    <K extends keyof Form>(k: K) =>
    (v: Form[K]) => (setForm((f) => ({ ...f, [k]: v })), setSaved(false));
  const check = (label: string, k: 'ucp_enabled' | 'require_signatures' | 'acp_enabled') => (
    <div class="field">
      <label>
        <input type="checkbox" checked={form[k]} disabled={!canEdit} onChange={(e) => set(k)((e.target as HTMLInputElement).checked)} /> {label}
      </label>
    </div>
  );
  const save = () =>
    act.run(async () => {
      const f = form;
      const hosts = await api('PATCH', '/settings', { hostnames: lines(f.hostnames) });
      if (!hosts.ok) return act.setError(hosts.error);
      const r = await api('PATCH', '/agentic', {
        ucp: { enabled: f.ucp_enabled, allowed_profiles: lines(f.allowed_profiles), require_signatures: f.require_signatures },
        acp: { enabled: f.acp_enabled, webhook_url: f.webhook_url.trim() || null, ...(f.webhook_secret ? { webhook_secret: f.webhook_secret } : {}) },
        payments: {
          adapter: f.adapter,
          manual_mode: f.manual_mode,
          continue_url: f.continue_url.trim() || null,
          ...(f.stripe_api_key ? { stripe_api_key: f.stripe_api_key } : {}),
        },
      });
      if (!r.ok) return act.setError(r.error);
      settings.setData(r.body);
      setForm((x) => ({ ...x, webhook_secret: '', stripe_api_key: '' }));
      setSaved(true);
    });
  const s = settings.data;
  return (
    <>
      <PageHeader title="Agentic commerce" />
      <ErrorLine error={settings.error ?? store.error ?? act.error} />
      {saved && <Notice>Saved.</Notice>}
      {s && (
        <form
          class="editor"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2>Where agents find the store</h2>
          <Field
            label="Hostnames"
            value={form.hostnames}
            onValue={set('hostnames')}
            disabled={!canEdit}
            hint="Separated by commas, e.g. shop.example.com: point the domain at svc (TLS at your proxy). /.well-known/ucp and /.well-known/acp.json answer there."
          />
          <h2>UCP</h2>
          {check('UCP agents may buy', 'ucp_enabled')}
          <Field
            label="Allowed agent profiles"
            value={form.allowed_profiles}
            onValue={set('allowed_profiles')}
            disabled={!canEdit}
            hint="Profile URL prefixes, separated by commas; empty: any agent."
          />
          {check('Require signed requests (RFC 9421)', 'require_signatures')}
          <h2>ACP</h2>
          {check('ACP agents may buy (a key with the checkout scope is one agent)', 'acp_enabled')}
          <Field label="Order webhook URL" value={form.webhook_url} onValue={set('webhook_url')} disabled={!canEdit} />
          <Field
            label="Webhook secret"
            value={form.webhook_secret}
            onValue={set('webhook_secret')}
            disabled={!canEdit}
            hint={s.acp.webhook_secret_set ? 'Set. Type a new one to replace it.' : 'Not set: webhooks are not sent.'}
          />
          <h2>Payments</h2>
          <Select
            label="Adapter"
            value={form.adapter}
            onValue={set('adapter')}
            options={[
              ['manual', 'Manual (order awaits payment)'],
              ['stripe', 'Stripe'],
            ]}
          />
          <Select
            label="Manual payments"
            value={form.manual_mode}
            onValue={set('manual_mode')}
            options={[
              ['pending', 'Place the order pending'],
              ['escalate', 'Send the buyer to the continue URL'],
            ]}
          />
          <Field label="Continue URL" value={form.continue_url} onValue={set('continue_url')} disabled={!canEdit} />
          <Field
            label="Stripe secret key"
            value={form.stripe_api_key}
            onValue={set('stripe_api_key')}
            disabled={!canEdit}
            hint={s.payments.stripe_api_key_set ? 'Set. Type a new one to replace it.' : "Not set: the operator's SVC_STRIPE_API_KEY is used."}
          />
          {canEdit && (
            <button class="primary" type="submit" disabled={act.busy}>
              Save
            </button>
          )}
        </form>
      )}
      {s?.ucp.enabled && <SigningKeys />}
    </>
  );
}

/** The keys /.well-known/ucp publishes; a rotation signs with a new one and keeps the old published for its grace period. */
function SigningKeys() {
  const c = useConsole();
  const keys = useResource('/agentic/ucp/signing-keys');
  const act = useAction();
  const rotate = () =>
    act.run(async () => {
      const r = await api('POST', '/agentic/ucp/signing-keys/rotate', {});
      if (!r.ok) return act.setError(r.error);
      keys.setData(r.body);
    });
  return (
    <>
      <h2>UCP signing keys</h2>
      <ErrorLine error={keys.error ?? act.error} />
      {keys.data && (
        <table class="records">
          <thead>
            <tr>
              <th>Key</th>
              <th>Created</th>
              <th>Published until</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((k) => (
              <tr key={k.kid}>
                <td>
                  {k.kid}
                  {k.signing ? ' (signing)' : ''}
                </td>
                <td>{new Date(k.created_at).toLocaleString()}</td>
                <td>{k.retires_at ? new Date(k.retires_at).toLocaleString() : 'no end'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {c.may('agentic.rotate_ucp_signing_keys') && (
        <button type="button" disabled={act.busy} onClick={() => void rotate()}>
          Rotate the signing key
        </button>
      )}
    </>
  );
}
