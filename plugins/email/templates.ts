import type { Static } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { errors, iso, listPage, rowOr404, stamps, unique, type Ctx, type Row } from '../../core/sdk';
import { checkSyntax, missingVariables, renderField, variablesOf, type Field } from './render';
import type { PreviewInput, TemplateCreate, TemplateQuery, TemplateUpdate } from './schemas';

const FIELDS: Field[] = ['subject', 'html', 'text'];

const toTemplate = (r: Row) => ({
  object: 'email_template' as const,
  id: r.id,
  name: r.name,
  slug: r.slug,
  category: r.category,
  subject: r.subject,
  html: r.html,
  text: r.text,
  version: r.version,
  ...stamps(r),
});

const slugTaken = (slug: string) => () => errors.conflict(`A template with slug '${slug}' exists in this store.`, 'duplicate_slug', 'slug');

/** Syntax of each field, then the marketing rule: the unsubscribe link in both bodies. */
function checkTemplate(t: { category: string; subject: string; html: string; text: string }) {
  for (const f of FIELDS) checkSyntax(t[f], f);
  if (t.category !== 'marketing') return;
  for (const f of ['html', 'text'] as const) {
    if (!variablesOf(t[f]).includes('unsubscribe_url')) {
      throw errors.validation(`Marketing email must include {{unsubscribe_url}} in ${f}.`, f);
    }
  }
}

export const templateRow = (ctx: Ctx, id: string, param = 'id') =>
  rowOr404(ctx.db, { table: 'email_templates', storeId: ctx.store.id, id, noun: 'email template', param });

export const getTemplate = async (ctx: Ctx, id: string) => toTemplate(await templateRow(ctx, id));

export const listTemplates = (ctx: Ctx, input: Static<typeof TemplateQuery>) =>
  listPage(ctx, { table: 'email_templates', path: '/email/templates', input }, (rows) => rows.map(toTemplate));

async function saveVersion(ctx: Ctx, r: Row) {
  await ctx.db.query(
    `INSERT INTO email_template_versions (template_id, store_id, version, subject, html, text, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [r.id, ctx.store.id, r.version, r.subject, r.html, r.text, r.updated_at],
  );
}

export async function createTemplate(ctx: Ctx, input: Static<typeof TemplateCreate>) {
  const t = { ...input, category: input.category ?? 'transactional' };
  checkTemplate(t);
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO email_templates (id, store_id, name, slug, category, subject, html, text, version, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, 1, $8, $8) RETURNING *`,
      [ctx.store.id, t.name, t.slug, t.category, t.subject, t.html, t.text, ctx.clock.now()],
    ),
    { email_templates_store_slug: slugTaken(t.slug) },
  );
  await saveVersion(ctx, row);
  return toTemplate(row);
}

export async function updateTemplate(ctx: Ctx, input: Static<typeof TemplateUpdate>) {
  const old = await rowOr404(ctx.db, { table: 'email_templates', storeId: ctx.store.id, id: input.id, noun: 'email template', lock: 'FOR UPDATE' });
  const next = {
    name: input.name ?? old.name,
    slug: input.slug ?? old.slug,
    category: input.category ?? old.category,
    subject: input.subject ?? old.subject,
    html: input.html ?? old.html,
    text: input.text ?? old.text,
  };
  checkTemplate(next);
  const changed = FIELDS.some((f) => next[f] !== old[f]);
  const [row] = await unique(
    ctx.db.query(
      `UPDATE email_templates SET name = $3, slug = $4, category = $5, subject = $6, html = $7, text = $8,
         version = version + $9, updated_at = $10
       WHERE store_id = $1 AND id = $2 RETURNING *`,
      [ctx.store.id, old.id, next.name, next.slug, next.category, next.subject, next.html, next.text, changed ? 1 : 0, ctx.clock.now()],
    ),
    { email_templates_store_slug: slugTaken(next.slug) },
  );
  if (changed) await saveVersion(ctx, row);
  return toTemplate(row);
}

export async function deleteTemplate(ctx: Ctx, id: string) {
  await templateRow(ctx, id);
  await ctx.db.query('DELETE FROM email_templates WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  return { id, object: 'email_template', deleted: true };
}

const toVersion = (r: Row) => ({
  object: 'email_template_version' as const,
  template_id: r.template_id,
  version: r.version,
  subject: r.subject,
  html: r.html,
  text: r.text,
  created_at: iso(r.created_at),
});

export async function listVersions(ctx: Ctx, id: string) {
  await templateRow(ctx, id);
  const rows = await ctx.db.query('SELECT * FROM email_template_versions WHERE store_id = $1 AND template_id = $2 ORDER BY version DESC', [
    ctx.store.id,
    id,
  ]);
  return { object: 'list' as const, data: rows.map(toVersion), has_more: false, url: `${ctx.storePath}/email/templates/${id}/versions` };
}

/** One version of a template (the latest unless `version` is given), or 404 naming `version`. */
export async function templateVersion(ctx: Ctx, id: string, version?: number, param = 'id'): Promise<Row> {
  const t = await templateRow(ctx, id, param);
  if (version === undefined || version === t.version) return { ...t, template_id: t.id };
  const [v] = await ctx.db.query('SELECT * FROM email_template_versions WHERE store_id = $1 AND template_id = $2 AND version = $3', [
    ctx.store.id,
    id,
    version,
  ]);
  if (!v) throw errors.notFound(`version ${version} of email template '${id}'`, 'version');
  return { ...v, id: t.id, category: t.category };
}

/** Renders a template version; variables the template reads but `variables` lacks are listed. */
export function renderVersion(v: Row, variables: Record<string, unknown>, key = `${v.id}:${v.version}`) {
  const used = new Set(FIELDS.flatMap((f) => variablesOf(v[f])));
  return {
    subject: renderField(key, 'subject', v.subject, variables),
    html: renderField(key, 'html', v.html, variables),
    text: renderField(key, 'text', v.text, variables),
    missing_variables: missingVariables([...used], variables),
  };
}

/** The variables svc fills itself: the store's name (and URL when known), a preview's unsubscribe link. */
export const storeVariables = (ctx: Ctx, publicUrl?: string) => ({
  store: { name: ctx.store.name, ...(publicUrl ? { url: publicUrl } : {}) },
});

export async function previewTemplate(ctx: Ctx, input: Static<typeof PreviewInput>, publicUrl?: string) {
  const v = await templateVersion(ctx, input.id, input.version);
  const vars = mergeVariables(storeVariables(ctx, publicUrl), { unsubscribe_url: '#unsubscribe' }, input.variables ?? {});
  const drafted = input.subject !== undefined || input.html !== undefined || input.text !== undefined;
  if (!drafted) return { object: 'rendered_template' as const, template_id: v.id, version: v.version, ...renderVersion(v, vars) };
  // A draft compiles under a key of its own content, so it never takes a stored version's place in the cache.
  const draft = { ...v, subject: input.subject ?? v.subject, html: input.html ?? v.html, text: input.text ?? v.text };
  for (const f of FIELDS) checkSyntax(draft[f], f); // a typo mid-edit is a 400 naming the field
  const key = `draft:${createHash('sha256').update(`${draft.subject}\0${draft.html}\0${draft.text}`).digest('hex')}`;
  return { object: 'rendered_template' as const, template_id: v.id, version: v.version, ...renderVersion(draft, vars, key) };
}

/** Shallow-per-level merge: the caller's `store.url` keeps svc's `store.name`. */
export function mergeVariables(...layers: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      const prev = out[k];
      out[k] =
        v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
          ? { ...(prev as object), ...(v as object) }
          : v;
    }
  }
  return out;
}
