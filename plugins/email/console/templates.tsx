import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  Field,
  Notice,
  PageHeader,
  ResourceList,
  Select,
  TextArea,
  useConsole,
  useCursorList,
  useEditor,
  valuesOf,
  when,
  type Body,
  type Reply,
  type Resource,
} from '../../../console/src/kit';

type Template = Resource<'/email/templates/{id}'>;
type Category = Body<'POST', '/email/templates'>['category'] & string;
const CATEGORIES = valuesOf<Category>({ transactional: true, marketing: true });

const SAMPLE = JSON.stringify(
  {
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    order: { number: '1001', total: '42.00', items: [{ name: 'Lamp', quantity: 1, price: '42.00' }] },
    store: { name: 'My store', url: 'https://shop.example.com' },
  },
  null,
  2,
);
const BLANK = { name: '', slug: '', category: 'transactional' as Category, subject: '', html: '', text: '' };

/** Email templates (SPEC 2.10): the list, and one template's editor with a live preview. */
export function EmailTemplatesPage() {
  const c = useConsole();
  return c.arg ? <Editor id={c.arg} /> : <Templates />;
}

function Templates() {
  const c = useConsole();
  const list = useCursorList('/email/templates', {}, { limit: 100 });
  return (
    <>
      <PageHeader title="Email templates">{c.may('email.create_template') && <a href="#/email-templates/new">New template</a>}</PageHeader>
      <ResourceList
        list={list}
        label="Email templates"
        empty="No templates."
        columns={[
          { title: 'Name', cell: (t) => <a href={`#/email-templates/${t.id}`}>{t.name}</a> },
          { title: 'Slug', class: 'mono', cell: (t) => t.slug },
          { title: 'Category', cell: (t) => t.category },
          { title: 'Version', num: true, cell: (t) => t.version },
          { title: 'Updated', cell: (t) => when(t.updated_at) },
        ]}
      />
    </>
  );
}

function Editor({ id }: { id: string }) {
  const c = useConsole();
  const isNew = id === 'new';
  const writable = c.may(isNew ? 'email.create_template' : 'email.update_template');
  const ed = useEditor({
    path: '/email/templates',
    id: isNew ? undefined : id,
    blank: BLANK,
    formOf: ({ name, slug, category, subject, html, text }: Template) => ({ name, slug, category: category as Category, subject, html, text }),
  });
  const { form, set, saved } = ed;
  const [vars, setVars] = useState(SAMPLE);
  const [note, setNote] = useState<string | null>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    const t = await ed.save(form);
    if (!t) return;
    setNote(`Saved as version ${t.version}.`);
    if (isNew) c.go(`email-templates/${t.id}`);
  };

  return (
    <>
      <PageHeader title={isNew ? 'New email template' : (saved?.name ?? 'Email template')}>
        <a href="#/email-templates">Back to templates</a>
      </PageHeader>
      {note && <Notice>{note}</Notice>}
      <ErrorLine error={ed.error} />
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
            <Select label="Category" value={form.category} onValue={set('category')} options={CATEGORIES} />
            <Field label="Subject" value={form.subject} onValue={set('subject')} required />
            <TextArea label="HTML" value={form.html} onValue={set('html')} rows={8} class="code" spellcheck={false} />
            <TextArea label="Text" value={form.text} onValue={set('text')} rows={6} class="code" spellcheck={false} required />
          </fieldset>
          {writable && (
            <button class="primary" type="submit" disabled={ed.busy}>
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
  const [out, setOut] = useState<Reply<'POST', '/email/templates/{id}/preview'> | null>(null);
  const [error, setError] = useState<any>(null);
  const seq = useRef(0);
  useEffect(() => {
    const t = setTimeout(async () => {
      let variables: Record<string, unknown>;
      try {
        variables = JSON.parse(vars || '{}');
      } catch {
        return setError('Variables are not valid JSON.');
      }
      const mine = ++seq.current;
      const { subject, html, text } = form;
      const r = await api('POST', `/email/templates/${encodeURIComponent(id)}/preview`, { variables, subject, html, text });
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
