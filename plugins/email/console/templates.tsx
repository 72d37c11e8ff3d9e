import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ErrorLine, Field, Notice, PageHeader, Select, TextArea, useAction, useConsole, when } from '../../../console/src/kit';

interface Template {
  id: string;
  name: string;
  slug: string;
  category: string;
  subject: string;
  html: string;
  text: string;
  version: number;
  updated_at: string;
}
interface Rendered {
  subject: string;
  html: string;
  text: string;
  missing_variables: string[];
}

const SAMPLE = JSON.stringify(
  {
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    order: { number: '1001', total: '42.00', items: [{ name: 'Lamp', quantity: 1, price: '42.00' }] },
    store: { name: 'My store', url: 'https://shop.example.com' },
  },
  null,
  2,
);
const BLANK = { name: '', slug: '', category: 'transactional', subject: '', html: '', text: '' };

/** Email templates (SPEC 2.10): the list, and one template's editor with a live preview. */
export function EmailTemplatesPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg} /> : <Templates />;
}

function Templates() {
  const c = useConsole();
  const [list, setList] = useState<Template[] | null>(null);
  const [error, setError] = useState<any>(null);
  useEffect(() => {
    api('GET', '/email/templates?limit=100').then((r) => (r.ok ? setList(r.body.data) : setError(r.error)));
  }, []);
  return (
    <>
      <PageHeader title="Email templates">{c.can('marketing:write') && <a href="#/email-templates/new">New template</a>}</PageHeader>
      <ErrorLine error={error} />
      {list && list.length === 0 && <p class="empty">No templates.</p>}
      {list && list.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Email templates">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Category</th>
                <th scope="col" class="num">
                  Version
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <tr key={t.id}>
                  <td>
                    <a href={`#/email-templates/${t.id}`}>{t.name}</a>
                  </td>
                  <td class="mono">{t.slug}</td>
                  <td>{t.category}</td>
                  <td class="num">{t.version}</td>
                  <td>{when(t.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Editor({ id }: { id: string }) {
  const c = useConsole();
  const isNew = id === 'new';
  const writable = c.can('marketing:write');
  const [saved, setSaved] = useState<Template | null>(null);
  const [form, setForm] = useState(BLANK);
  const [vars, setVars] = useState(SAMPLE);
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  const set = (k: keyof typeof BLANK) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  useEffect(() => {
    if (isNew) return;
    api<Template>('GET', `/email/templates/${encodeURIComponent(id)}`).then((r) => {
      if (!r.ok) return act.setError(r.error);
      setSaved(r.body);
      const { name, slug, category, subject, html, text } = r.body;
      setForm({ name, slug, category, subject, html, text });
    });
  }, [id]);

  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const r = isNew
        ? await api<Template>('POST', '/email/templates', form)
        : await api<Template>('PATCH', `/email/templates/${encodeURIComponent(id)}`, form);
      if (!r.ok) return act.setError(r.error);
      setSaved(r.body);
      setNote(`Saved as version ${r.body.version}.`);
      if (isNew) c.go(`email-templates/${r.body.id}`);
    });
  };

  return (
    <>
      <PageHeader title={isNew ? 'New email template' : (saved?.name ?? 'Email template')}>
        <a href="#/email-templates">Back to templates</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={act.error} />
      <div class="split">
        <form class="form" onSubmit={save}>
          <fieldset disabled={!writable}>
            <legend class="visually-hidden">Template</legend>
            <Field label="Name" value={form.name} onValue={set('name')} required />
            <Field
              label="Slug"
              value={form.slug}
              onValue={set('slug')}
              required
              hint="Lower-case words joined by hyphens, e.g. order-confirmation."
            />
            <Select label="Category" value={form.category} onValue={set('category')} options={['transactional', 'marketing']} />
            <Field label="Subject" value={form.subject} onValue={set('subject')} required />
            <TextArea label="HTML" value={form.html} onValue={set('html')} rows={8} class="code" spellcheck={false} />
            <TextArea label="Text" value={form.text} onValue={set('text')} rows={6} class="code" spellcheck={false} required />
          </fieldset>
          {writable && (
            <button class="primary" type="submit" disabled={act.busy}>
              {isNew ? 'Create template' : 'Save'}
            </button>
          )}
        </form>
        <section aria-labelledby="preview-title">
          <h2 id="preview-title">Preview</h2>
          {saved ? (
            <>
              <TextArea label="Variables (JSON)" value={vars} onValue={setVars} rows={8} class="code" spellcheck={false} />
              <Preview id={saved.id} form={form} vars={vars} />
            </>
          ) : (
            <p class="empty">Create the template to preview it.</p>
          )}
        </section>
      </div>
    </>
  );
}

/**
 * Renders the form as the user types (debounced): the preview endpoint takes the unsaved subject,
 * html and text in place of the stored ones, so the output is what a send would carry once saved.
 */
function Preview({ id, form, vars }: { id: string; form: typeof BLANK; vars: string }) {
  const [out, setOut] = useState<Rendered | null>(null);
  const [error, setError] = useState<any>(null);
  const seq = useRef(0);
  useEffect(() => {
    const t = setTimeout(async () => {
      let variables: unknown;
      try {
        variables = JSON.parse(vars || '{}');
      } catch {
        return setError('Variables are not valid JSON.');
      }
      const mine = ++seq.current;
      const { subject, html, text } = form;
      const r = await api<Rendered>('POST', `/email/templates/${encodeURIComponent(id)}/preview`, { variables, subject, html, text });
      if (mine !== seq.current) return; // a newer keystroke's answer wins
      if (r.ok) {
        setOut(r.body);
        setError(null);
      } else setError(r.error);
    }, 300);
    return () => clearTimeout(t);
  }, [id, vars, form.subject, form.html, form.text]);
  return (
    <div aria-live="polite">
      <ErrorLine error={error} />
      {out && (
        <>
          <dl class="facts">
            <dt>Subject</dt>
            <dd>{out.subject}</dd>
            <dt>Missing variables</dt>
            <dd>{out.missing_variables.length ? out.missing_variables.join(', ') : 'none'}</dd>
          </dl>
          {/* sandbox="" runs no script in the template's HTML, so the console's CSP stays as strict */}
          <iframe class="preview" title="HTML preview" sandbox="" srcdoc={out.html} />
          <h3>Text</h3>
          <pre class="json">{out.text}</pre>
        </>
      )}
    </div>
  );
}
