import { Type } from '@sinclair/typebox';
import { action, conflict, definePlugin } from '../../core/sdk';
import migration001 from './migrations/001_email.sql' with { type: 'text' };
import {
  PreviewInput,
  Rendered,
  RenderInput,
  Template,
  TemplateCreate,
  TemplateId,
  TemplateList,
  TemplateQuery,
  TemplateUpdate,
  TemplateVersionList,
} from './schemas';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, listVersions, previewTemplate, updateTemplate } from './templates';
import { Deleted } from '../../core/sdk';

const template = (over: Record<string, unknown> = {}) => ({
  name: 'Order confirmation',
  slug: `order-confirmation-${crypto.randomUUID().slice(0, 8)}`,
  subject: 'Your order {{order.number}}',
  html: '<p>Hello {{customer.name}}, thank you for order {{order.number}}.</p>',
  text: 'Hello {{customer.name}}, thank you for order {{order.number}}.',
  ...over,
});

/**
 * Transactional email (issue 28): versioned Handlebars templates, sending through a pg-boss job
 * over SMTP with DKIM, sending domains verified in DNS, tracking and stats. README: Email.
 */
export default definePlugin({
  name: 'email',
  category: 'marketing',
  catalog: true,
  description: 'Transactional and marketing email: templates, sending, delivery status and tracking.',
  resource: 'email',
  scopes: { read: ['marketing', 'marketing:read', 'marketing:write'], write: ['marketing', 'marketing:write'] },
  config: Type.Object({
    smtp_url: Type.Optional(
      Type.String({ env: 'SMTP_URL', description: 'The relay mail leaves through: smtp://user:pass@host:587 (STARTTLS) or smtps://host:465.' }),
    ),
    from: Type.Optional(Type.String({ env: 'SVC_EMAIL_FROM', description: 'The default sender, allowed for every store.' })),
    public_url: Type.Optional(Type.String({ env: 'SVC_PUBLIC_URL', description: 'Public origin for tracking and unsubscribe links.' })),
  }),
  errors: {
    duplicate_slug: conflict('Another template of the store has this slug.'),
  },
  migrations: [{ id: 'email/001_email', sql: migration001 }],
  actions: {
    list_templates: action({
      kind: 'read',
      description: 'List email templates, newest first.',
      input: TemplateQuery,
      output: TemplateList,
      rest: { method: 'GET', path: '/email/templates' },
      handler: listTemplates,
    }),
    create_template: action({
      kind: 'write',
      description:
        'Create a Handlebars email template (subject, html, text; text is required). Marketing templates must use {{unsubscribe_url}} in html and text.',
      input: TemplateCreate,
      output: Template,
      rest: { method: 'POST', path: '/email/templates', status: 201 },
      errors: ['duplicate_slug'],
      example: template(),
      handler: createTemplate,
    }),
    get_template: action({
      kind: 'read',
      description: 'Fetch one email template (its latest version).',
      input: TemplateId,
      output: Template,
      rest: { method: 'GET', path: '/email/templates/:id' },
      handler: (ctx, { id }) => getTemplate(ctx, id),
    }),
    update_template: action({
      kind: 'write',
      description: 'Change a template; a change to subject, html or text makes a new version.',
      input: TemplateUpdate,
      output: Template,
      rest: { method: 'PATCH', path: '/email/templates/:id' },
      errors: ['duplicate_slug'],
      handler: updateTemplate,
    }),
    delete_template: action({
      kind: 'destructive',
      description: 'Delete a template and its versions (messages sent with it keep their content).',
      input: TemplateId,
      output: Deleted,
      rest: { method: 'DELETE', path: '/email/templates/:id' },
      handler: (ctx, { id }) => deleteTemplate(ctx, id),
    }),
    list_template_versions: action({
      kind: 'read',
      description: 'Every version of a template, newest first.',
      input: TemplateId,
      output: TemplateVersionList,
      rest: { method: 'GET', path: '/email/templates/:id/versions' },
      handler: (ctx, { id }) => listVersions(ctx, id),
    }),
    preview_template: action({
      kind: 'read',
      description: 'Render a template with variables; lists the variables it uses that were not given.',
      input: PreviewInput,
      output: Rendered,
      rest: { method: 'POST', path: '/email/templates/:id/preview' },
      handler: (ctx, input) => previewTemplate(ctx, input, ctx.config.public_url),
    }),
    render_template: action({
      kind: 'read',
      description: 'Render a template by id with variables, as preview does (subject, html, text, missing variables).',
      input: RenderInput,
      output: Rendered,
      rest: { method: 'POST', path: '/email/render' },
      example: async ({ make }) => ({ template_id: (await make('email.create_template')).id, variables: { customer: { name: 'Ada' } } }),
      handler: (ctx, { template_id, ...rest }) => previewTemplate(ctx, { id: template_id, ...rest }, ctx.config.public_url),
    }),
  },
});
