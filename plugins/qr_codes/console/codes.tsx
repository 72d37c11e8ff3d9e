import { useEffect, useState } from 'preact/hooks';
import { type Landing, LandingPreview, QrMatrixPreview } from './preview';
import {
  api,
  apiDataUrl,
  ErrorLine,
  Field,
  FilterForm,
  Notice,
  PageHeader,
  query,
  ResourceList,
  Select,
  Status,
  TextArea,
  useAction,
  useConsole,
  useCursorList,
  useEditor,
  valuesOf,
  when,
  type Answer,
  type Body,
  type Query,
  type Resource,
} from '../../../console/src/kit';

type QrCode = Resource<'/qr-codes/{code}'>;
type QrType = Body<'POST', '/qr-codes'>['type'] & string;
type QrStatus = NonNullable<Query<'/qr-codes'>['status']>;
const TYPES = valuesOf<QrType>({ custom: true, product: true, coupon: true, landing_page: true });
const STATUSES = valuesOf<QrStatus>({ active: true, deactivated: true, expired: true, maxed_out: true });
const imagePath = (code: string, format: 'png' | 'svg', size = 300) =>
  `/qr-codes/${encodeURIComponent(code)}/image${query({ format, size })}` as const;

/** QR codes (issue 29): the list with images and downloads, create and edit with live previews. */
export function QrCodesPage() {
  const c = useConsole();
  // Keyed by the address: going from one code (or a new one) to another starts a fresh form.
  return c.arg ? <Editor key={c.arg} code={c.arg === 'new' ? undefined : c.arg} /> : <List />;
}

/** Fetches the image with the token (never in its address) and saves it as a file. */
async function download(code: string, format: 'png' | 'svg') {
  const href = await apiDataUrl(imagePath(code, format, 1024));
  const a = document.createElement('a');
  a.href = href;
  a.download = `qr-${code}.${format}`;
  document.body.append(a);
  a.click();
  a.remove();
}

/** `version` changes when the image may have (a save): it is fetched again. */
function QrImage({ code, size, alt, version }: { code: string; size: number; alt: string; version?: unknown }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    apiDataUrl(imagePath(code, 'png', size)).then(setSrc, (e) => setFailed((e as Error).message));
  }, [code, size, version]);
  if (failed) return <ErrorLine error={failed} />;
  return src ? <img class="qr-image" src={src} alt={alt} width={size} height={size} /> : <span class="qr-image placeholder" />;
}

function Downloads({ code }: { code: string }) {
  const act = useAction();
  return (
    <div class="downloads">
      <button type="button" disabled={act.busy} onClick={() => act.run(() => download(code, 'png'))} aria-label={`Download ${code} as PNG`}>
        PNG
      </button>
      <button type="button" disabled={act.busy} onClick={() => act.run(() => download(code, 'svg'))} aria-label={`Download ${code} as SVG`}>
        SVG
      </button>
      <ErrorLine error={act.error} />
    </div>
  );
}

function List() {
  const c = useConsole();
  const [status, setStatus] = useState<QrStatus | ''>('');
  const [campaign, setCampaign] = useState('');
  const list = useCursorList('/qr-codes', { status, campaign_name: campaign }, { cursorOf: (q) => q.code });
  return (
    <>
      <PageHeader title="QR codes">
        {c.may('qr_codes.create_qr_code') && (
          <a class="button primary" href="#/qr-codes/new">
            New QR code
          </a>
        )}
      </PageHeader>
      <FilterForm onSubmit={list.reload}>
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
        <Field label="Campaign" value={campaign} onValue={setCampaign} />
      </FilterForm>
      <ResourceList
        list={list}
        label="QR codes"
        empty="No QR codes."
        rowKey={(q) => q.code}
        columns={[
          { title: 'Image', cell: (q) => <QrImage code={q.code} size={64} alt={`QR code ${q.code}`} /> },
          { title: 'Code', cell: (q) => <CodeCell q={q} /> },
          {
            title: 'Scans',
            num: true,
            cell: (q) => (
              <>
                <a href={`#/qr-analytics/code/${encodeURIComponent(q.code)}`} aria-label={`Analytics of ${q.code}: ${q.total_scans} scans`}>
                  {q.total_scans}
                </a>
                {q.max_scans !== null && <div class="sub">of {q.max_scans}</div>}
              </>
            ),
          },
          { title: 'Download', cell: (q) => <Downloads code={q.code} /> },
        ]}
      />
    </>
  );
}

function CodeCell({ q }: { q: QrCode }) {
  return (
    <>
      <a href={`#/qr-codes/${encodeURIComponent(q.code)}`}>{q.code}</a>
      <div class="sub">
        {q.type} · <Status status={q.status} />
      </div>
      {q.campaign_name && (
        <div class="sub">
          Campaign <a href={`#/qr-analytics/campaign/${encodeURIComponent(q.campaign_name)}`}>{q.campaign_name}</a>
        </div>
      )}
    </>
  );
}

/** datetime-local shows local time without a zone; the API speaks ISO 8601. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

type Form = Record<
  'code' | 'destination_url' | 'brand_color' | 'logo_url' | 'campaign_name' | 'expires_at' | 'max_scans' | 'expired_message',
  string
> & {
  type: QrType;
  track_conversions: boolean;
  landing: Landing;
};

const emptyLanding = (): Landing => ({
  title: '',
  description: '',
  image_url: '',
  cta_text: '',
  cta_url: '',
  background_color: '#ffffff',
  text_color: '#1b1f24',
  accent_color: '#0b57d0',
});

function formOf(q?: QrCode): Form {
  return {
    code: q?.code ?? '',
    type: (q?.type as QrType) ?? 'custom',
    destination_url: q?.destination_url ?? '',
    brand_color: q?.brand_color ?? '',
    logo_url: q?.logo_url ?? '',
    campaign_name: q?.campaign_name ?? '',
    expires_at: toLocalInput(q?.expires_at ?? null),
    max_scans: q?.max_scans?.toString() ?? '',
    expired_message: q?.expired_message ?? '',
    track_conversions: q?.track_conversions ?? true,
    landing: { ...emptyLanding(), ...Object.fromEntries(Object.entries(q?.landing_page ?? {}).filter(([, v]) => v != null)) },
  };
}

/** The request body: on create, empty fields are left out; on edit, they clear (null). */
function bodyOf(f: Form, creating: boolean): Body<'POST', '/qr-codes'> | Body<'PATCH', '/qr-codes/{code}'> {
  const blank = creating ? undefined : null;
  const v = (s: string) => (s.trim() === '' ? blank : s.trim());
  const body: Record<string, unknown> = {
    destination_url: f.type === 'landing_page' ? undefined : v(f.destination_url),
    brand_color: v(f.brand_color),
    logo_url: v(f.logo_url),
    campaign_name: v(f.campaign_name),
    expires_at: f.expires_at ? new Date(f.expires_at).toISOString() : blank,
    max_scans: f.max_scans ? Number(f.max_scans) : blank,
    expired_message: v(f.expired_message),
    track_conversions: f.track_conversions,
  };
  if (creating) Object.assign(body, { type: f.type, code: v(f.code) });
  if (f.type === 'landing_page') body.landing_page = Object.fromEntries(Object.entries(f.landing).map(([k, text]) => [k, v(text)]));
  return JSON.parse(JSON.stringify(body)); // drops the undefined ones
}

function Editor({ code }: { code?: string }) {
  const c = useConsole();
  const writable = c.may(code ? 'qr_codes.update_qr_code' : 'qr_codes.create_qr_code');
  const ed = useEditor({ path: '/qr-codes', id: code, blank: formOf(), formOf });
  const { form, saved } = ed;
  const [note, setNote] = useState<string | null>(null);
  const set = (patch: Partial<Form>) => ed.setForm((f) => ({ ...f, ...patch }));
  const setLanding = (k: keyof Landing) => (value: string) => ed.setForm((f) => ({ ...f, landing: { ...f.landing, [k]: value } }));

  const save = async (e: Event) => {
    e.preventDefault();
    const q = await ed.save(bodyOf(form, !code));
    if (!q) return;
    if (!code) return c.go(`qr-codes/${encodeURIComponent(q.code)}`);
    setNote('Saved.');
  };
  const post = (send: () => Promise<Answer<QrCode>>, done: string) =>
    ed.run(async () => {
      const r = await send();
      if (!r.ok) return ed.setError(r.error);
      ed.show(r.body);
      setNote(done);
    });
  const archive = () =>
    ed.run(async () => {
      const r = await api('DELETE', at!);
      if (!r.ok) return ed.setError(r.error);
      c.go('qr-codes');
    });
  const at = saved && (`/qr-codes/${encodeURIComponent(saved.code)}` as const);

  // The preview encodes what the printed code will: the saved scan_url, or this server's /s/{code}.
  const scanUrl = saved?.scan_url ?? `${location.origin}/s/${form.code.trim() || 'xxxxxxxxxx'}`;
  const landing = form.type === 'landing_page';
  return (
    <>
      <PageHeader title={code ? `QR code ${code}` : 'New QR code'}>
        <a href="#/qr-codes">Back to QR codes</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={ed.error} />
      {saved && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Status status={saved.status} />
          </dd>
          <dt>Scans</dt>
          <dd>
            <a href={`#/qr-analytics/code/${encodeURIComponent(saved.code)}`}>{saved.total_scans}</a>
            {saved.remaining !== null && ` (${saved.remaining} left)`}
          </dd>
          <dt>Scan URL</dt>
          <dd class="mono">{saved.scan_url}</dd>
          <dt>Created</dt>
          <dd>{when(saved.created_at)}</dd>
        </dl>
      )}
      <div class="qr-editor">
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable}>
            {!code && (
              <>
                <Field label="Code" value={form.code} onValue={(v) => set({ code: v })} hint="Letters, digits, _ or -; generated when left empty." />
                <Select label="Type" value={form.type} onValue={(v) => set({ type: v })} options={TYPES} />
              </>
            )}
            {!landing && (
              <Field label="Destination URL" type="url" value={form.destination_url} onValue={(v) => set({ destination_url: v })} required />
            )}
            <Field label="Campaign" value={form.campaign_name} onValue={(v) => set({ campaign_name: v })} />
            <Field
              label="Brand color"
              value={form.brand_color}
              onValue={(v) => set({ brand_color: v })}
              hint="Hex, such as #1a73e8; dark enough to scan."
            />
            <Field label="Logo URL (PNG)" type="url" value={form.logo_url} onValue={(v) => set({ logo_url: v })} />
            <Field label="Expires at" type="datetime-local" value={form.expires_at} onValue={(v) => set({ expires_at: v })} />
            <Field label="Max scans" type="number" min={1} value={form.max_scans} onValue={(v) => set({ max_scans: v })} />
            <TextArea label="Expired message" value={form.expired_message} onValue={(v) => set({ expired_message: v })} rows={2} />
            <label class="check">
              <input
                type="checkbox"
                checked={form.track_conversions}
                onChange={(e) => set({ track_conversions: (e.target as HTMLInputElement).checked })}
              />
              Track conversions (adds svc_scan to the destination)
            </label>
            {landing && (
              <>
                <h2>Landing page</h2>
                <Field label="Title" value={form.landing.title} onValue={setLanding('title')} required />
                <TextArea label="Description" value={form.landing.description} onValue={setLanding('description')} />
                <Field label="Image URL" type="url" value={form.landing.image_url} onValue={setLanding('image_url')} />
                <Field label="Button text" value={form.landing.cta_text} onValue={setLanding('cta_text')} />
                <Field label="Button URL" type="url" value={form.landing.cta_url} onValue={setLanding('cta_url')} />
                <Field label="Background color" value={form.landing.background_color} onValue={setLanding('background_color')} />
                <Field label="Text color" value={form.landing.text_color} onValue={setLanding('text_color')} />
                <Field label="Button color" value={form.landing.accent_color} onValue={setLanding('accent_color')} />
              </>
            )}
          </fieldset>
          {writable && (
            <button class="primary" type="submit" disabled={ed.busy}>
              {code ? 'Save' : 'Create QR code'}
            </button>
          )}
        </form>
        <aside class="previews" aria-label="Previews">
          {writable && (
            <>
              <h2>Preview</h2>
              <QrMatrixPreview text={scanUrl} brandColor={form.brand_color} withLogo={form.logo_url.trim() !== ''} />
              <p class="sub">Drawn from the form; the logo is placed on save.</p>
            </>
          )}
          {saved && (
            <>
              <h2>Saved image</h2>
              <QrImage code={saved.code} size={300} alt={`QR code ${saved.code}, encoding ${saved.scan_url}`} version={saved} />
              <Downloads code={saved.code} />
            </>
          )}
          {landing && (
            <>
              <h2>Landing page</h2>
              <LandingPreview page={form.landing} />
            </>
          )}
        </aside>
      </div>
      {saved && writable && (
        <div class="buttons">
          {saved.status === 'active' ? (
            <button onClick={() => post(() => api('POST', `${at!}/deactivate`, {}), 'Deactivated.')} disabled={ed.busy}>
              Deactivate
            </button>
          ) : (
            <button onClick={() => post(() => api('PATCH', at!, { status: 'active' }), 'Reactivated.')} disabled={ed.busy}>
              Reactivate
            </button>
          )}
          <button class="danger" disabled={ed.busy} onClick={() => confirm(`Archive ${saved.code}? Its scan URL will answer 404.`) && archive()}>
            Archive
          </button>
        </div>
      )}
    </>
  );
}
