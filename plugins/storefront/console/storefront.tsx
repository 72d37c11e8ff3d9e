import { useEffect, useState } from 'preact/hooks';
import {
  api,
  apiDataUrl,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  Select,
  TextArea,
  useAction,
  useConsole,
  useResource,
  valuesOf,
  type Body,
  type Resource,
} from '../../../console/src/kit';

type Theme = Resource<'/storefront'>['theme'];
type Update = Body<'PATCH', '/storefront/theme'>;
type Font = NonNullable<Update['heading_font']>;
type Layout = NonNullable<Update['layout']>;
const LAYOUTS = valuesOf<Layout>({ classic: true, grid: true, minimal: true });
const COLORS = [
  ['primary_color', 'Primary color'],
  ['accent_color', 'Accent color'],
  ['background_color', 'Background color'],
  ['text_color', 'Text color'],
] as const;
const TEXTS = [
  ['announcement_text', 'Announcement'],
  ['hero_title', 'Hero title'],
  ['hero_subtitle', 'Hero subtitle'],
  ['footer_text', 'Footer'],
] as const;

/**
 * Settings → Storefront: the theme, a sample drawn with it here, and the real home page to
 * download (the console's CSP, which allows no inline style, would not draw it inside this page).
 */
export function StorefrontPage() {
  const c = useConsole();
  const cfg = useResource('/storefront');
  const act = useAction();
  const [t, setT] = useState<Theme | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => void (cfg.data && setT(cfg.data.theme)), [cfg.data]);
  const canEdit = c.may('storefront.update_theme');
  const set =
    <K extends keyof Theme>(k: K) =>
    (v: Theme[K]) => (setT((x) => x && { ...x, [k]: v }), setSaved(false));

  const save = () =>
    act.run(async () => {
      if (!t) return;
      const body: Update = {
        primary_color: t.primary_color,
        accent_color: t.accent_color,
        background_color: t.background_color,
        text_color: t.text_color,
        heading_font: t.heading_font as Font,
        body_font: t.body_font as Font,
        logo_url: t.logo_url || null,
        layout: t.layout,
        products_per_row: t.products_per_row,
        announcement_text: t.announcement_text || null,
        hero_title: t.hero_title || null,
        hero_subtitle: t.hero_subtitle || null,
        footer_text: t.footer_text || null,
      };
      const r = await api('PATCH', '/storefront/theme', body);
      if (!r.ok) return act.setError(r.error);
      cfg.setData(r.body);
      setSaved(true);
    });

  // The page as a file: saved, then opened from disk, it runs under its own CSP, not the console's.
  const download = () =>
    act.run(async () => {
      const url = await apiDataUrl('/storefront/preview');
      const html = decodeURIComponent(escape(atob(url.slice(url.indexOf(',') + 1))));
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
      a.download = 'storefront-preview.html';
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    });

  const fonts = (cfg.data?.fonts ?? []) as Font[];
  return (
    <>
      <PageHeader title="Storefront" />
      <ErrorLine error={cfg.error ?? act.error} />
      {t && (
        <form
          class="editor"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          {COLORS.map(([k, label]) => (
            <Field key={k} label={label} type="color" value={t[k]} onValue={set(k)} disabled={!canEdit} />
          ))}
          <Select label="Heading font" value={t.heading_font as Font} onValue={set('heading_font')} options={fonts} />
          <Select label="Body font" value={t.body_font as Font} onValue={set('body_font')} options={fonts} />
          <Select label="Layout" value={t.layout} onValue={set('layout')} options={LAYOUTS} />
          <Select
            label="Products per row"
            value={String(t.products_per_row) as '2'}
            onValue={(v) => set('products_per_row')(Number(v))}
            options={['2', '3', '4', '5', '6'] as '2'[]}
          />
          <Field label="Logo URL" value={t.logo_url ?? ''} onValue={set('logo_url')} hint="https only" disabled={!canEdit} />
          {TEXTS.map(([k, label]) => (
            <TextArea key={k} label={label} value={t[k] ?? ''} onValue={set(k)} />
          ))}
          {canEdit && (
            <button class="primary" type="submit" disabled={act.busy}>
              Save theme
            </button>
          )}{' '}
          {c.may('storefront.preview') && (
            <button type="button" disabled={act.busy} onClick={download}>
              Download preview
            </button>
          )}
          {saved && <Notice>Saved.</Notice>}
        </form>
      )}
      {t && <Sample t={t} name={c.store.name} />}
    </>
  );
}

/** A small sample of the theme, styled through the DOM (allowed by the CSP), texts as text. */
function Sample({ t, name }: { t: Theme; name: string }) {
  return (
    <section aria-label="Theme sample" style={{ background: t.background_color, color: t.text_color, border: '1px solid #ccc', marginTop: '16px' }}>
      {t.announcement_text && <div style={{ background: t.accent_color, color: '#fff', padding: '4px 8px' }}>{t.announcement_text}</div>}
      <div style={{ background: t.primary_color, color: '#fff', padding: '8px 12px', fontFamily: t.heading_font }}>{name}</div>
      {t.layout !== 'grid' && t.hero_title && (
        <h2 style={{ color: t.primary_color, fontFamily: t.heading_font, padding: '0 12px' }}>{t.hero_title}</h2>
      )}
      {t.hero_subtitle && t.layout !== 'grid' && <p style={{ padding: '0 12px', fontFamily: t.body_font }}>{t.hero_subtitle}</p>}
      <div style={{ display: 'grid', gridTemplateColumns: `repeat(${t.products_per_row}, 1fr)`, gap: '8px', padding: '12px' }}>
        {Array.from({ length: t.products_per_row }, (_, i) => (
          <div key={i} style={{ height: '40px', background: t.primary_color, opacity: 0.15 }} aria-hidden="true" />
        ))}
      </div>
      {t.footer_text && <p style={{ padding: '0 12px 12px', fontFamily: t.body_font }}>{t.footer_text}</p>}
    </section>
  );
}
