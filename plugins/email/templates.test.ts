import { expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';

const base = {
  name: 'Order confirmation',
  slug: 'order-confirmation',
  subject: 'Order {{order.number}} for {{customer.name}}',
  html: '<p>Hi {{customer.name}}</p><ul>{{#each order.items}}<li>{{name}} x{{quantity}}</li>{{/each}}</ul><p>{{store.name}}</p>',
  text: 'Hi {{customer.name}}, order {{order.number}} total {{order.total}}',
};

test('a template is created at version 1, previewed with escaped HTML, and missing variables are listed', async () => {
  const h = await setup();
  const made = await h.call('POST', '/email/templates', base);
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ object: 'email_template', slug: 'order-confirmation', version: 1, category: 'transactional' });

  const preview = await h.call('POST', `/email/templates/${made.body.id}/preview`, {
    variables: { customer: { name: '<b>Ada</b>' }, order: { items: [{ name: 'Mug', quantity: 2, price: 9 }] } },
  });
  expect(preview.status).toBe(200);
  expect(preview.body.html).toContain('&lt;b&gt;Ada&lt;/b&gt;');
  expect(preview.body.html).toContain('<li>Mug x2</li>');
  expect(preview.body.html).toContain('<p>Test store</p>');
  // Subject and text are plain text: no entity escaping there.
  expect(preview.body.subject).toBe('Order  for <b>Ada</b>');
  expect(preview.body.missing_variables.sort()).toEqual(['order.number', 'order.total']);

  const list = await h.call('GET', '/email/templates?limit=1');
  expect(list.body).toMatchObject({ object: 'list', has_more: false, url: `${h.base}/email/templates` });
  expect(list.body.data[0].id).toBe(made.body.id);
});

test("an editor's unsaved draft previews in place of the stored fields, without changing what is sent", async () => {
  const h = await setup();
  const made = await h.call('POST', '/email/templates', base);
  const path = `/email/templates/${made.body.id}/preview`;
  const vars = { customer: { name: 'Ada' }, order: { number: '7' } };
  const draft = await h.call('POST', path, { variables: vars, subject: 'Draft {{order.number}}', html: '<p>{{customer.email}}</p>' });
  expect(draft.status).toBe(200);
  expect(draft.body).toMatchObject({ version: 1, subject: 'Draft 7', html: '<p></p>', text: 'Hi Ada, order 7 total ' });
  expect(draft.body.missing_variables.sort()).toEqual(['customer.email', 'order.total']);
  // The stored version renders as before: the draft neither saved nor took its place in the cache.
  expect((await h.call('POST', path, { variables: vars })).body.subject).toBe('Order 7 for Ada');
  const broken = await h.call('POST', path, { html: '{{#each order.items}}' });
  expect(broken.status).toBe(400);
  expect(broken.body.error.param).toBe('html');
});

test('text is required, and a syntax error is a 400 naming the field with line and column', async () => {
  const h = await setup();
  const { text: _, ...noText } = base;
  const missing = await h.call('POST', '/email/templates', noText);
  expect(missing.status).toBe(400);
  expect(missing.body.error.param).toBe('text');

  const broken = await h.call('POST', '/email/templates', { ...base, html: '<p>ok</p>\n<p>{{customer.name}</p>' });
  expect(broken.status).toBe(400);
  expect(broken.body.error.param).toBe('html');
  expect(broken.body.error.message).toMatch(/line 2, column \d+/);

  const mismatch = await h.call('POST', '/email/templates', { ...base, subject: '{{#if a}}x{{/each}}' });
  expect(mismatch.status).toBe(400);
  expect(mismatch.body.error).toMatchObject({ param: 'subject' });
  expect(mismatch.body.error.message).toContain('line 1, column');
});

test('a marketing template needs {{unsubscribe_url}} in html and in text', async () => {
  const h = await setup();
  const noHtml = await h.call('POST', '/email/templates', { ...base, category: 'marketing', text: 'x {{unsubscribe_url}}' });
  expect(noHtml.status).toBe(400);
  expect(noHtml.body.error.param).toBe('html');
  const noText = await h.call('POST', '/email/templates', { ...base, category: 'marketing', html: '<a href="{{unsubscribe_url}}">u</a>' });
  expect(noText.body.error.param).toBe('text');
  const ok = await h.call('POST', '/email/templates', {
    ...base,
    category: 'marketing',
    html: '<a href="{{unsubscribe_url}}">u</a>',
    text: 'u: {{unsubscribe_url}}',
  });
  expect(ok.status).toBe(201);
  const bad = await h.call('POST', '/email/templates', { ...base, slug: 'x', category: 'newsletter' });
  expect(bad.body.error.param).toBe('category');
});

test('the slug is unique per store (409), and free in another store', async () => {
  const h = await setup();
  expect((await h.call('POST', '/email/templates', base)).status).toBe(201);
  const again = await h.call('POST', '/email/templates', base);
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'duplicate_slug', param: 'slug' });
  const other = await setup();
  expect((await other.call('POST', '/email/templates', base)).status).toBe(201);
});

test('changing subject, html or text makes version n+1; old versions stay readable and renderable', async () => {
  const h = await setup();
  const { id } = (await h.call('POST', '/email/templates', base)).body;
  const renamed = await h.call('PATCH', `/email/templates/${id}`, { name: 'Renamed' });
  expect(renamed.body.version).toBe(1);
  const changed = await h.call('PATCH', `/email/templates/${id}`, { text: 'New text {{customer.name}}' });
  expect(changed.body.version).toBe(2);
  const versions = await h.call('GET', `/email/templates/${id}/versions`);
  expect(versions.body.data.map((v: any) => [v.version, v.text])).toEqual([
    [2, 'New text {{customer.name}}'],
    [1, base.text],
  ]);
  const old = await h.call('POST', `/email/templates/${id}/preview`, { version: 1, variables: { customer: { name: 'Ada' } } });
  expect(old.body).toMatchObject({ version: 1, text: 'Hi Ada, order  total ' });
  const gone = await h.call('POST', `/email/templates/${id}/preview`, { version: 7 });
  expect(gone.status).toBe(404);
  expect(gone.body.error.param).toBe('version');

  expect((await h.call('DELETE', `/email/templates/${id}`)).body).toMatchObject({ deleted: true });
  expect((await h.call('GET', `/email/templates/${id}`)).status).toBe(404);
});
