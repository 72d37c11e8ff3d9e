import { expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { setup } from '../../test/kit/setup';

test('the MCP tool email: marketing:read lists and renders templates, sending needs marketing or marketing:write', async () => {
  const h = await setup({ env: { SVC_EMAIL_FROM: 'noreply@svc.test' } });
  const tpl = await h.call('POST', '/email/templates', {
    name: 'Receipt',
    slug: 'receipt',
    subject: 'Receipt {{order.number}}',
    html: '<p>{{customer.name}}</p>',
    text: '{{customer.name}}',
  });

  const reader = await mcpClient(h, { key: await h.newKey(['marketing:read']) });
  const listed: any = await reader.client.callTool({ name: 'email', arguments: { action: 'list_templates' } });
  expect(JSON.parse(listed.content[0].text).data[0].id).toBe(tpl.body.id);
  const rendered: any = await reader.client.callTool({
    name: 'email',
    arguments: { action: 'render_template', template_id: tpl.body.id, variables: { customer: { name: 'Ada' } } },
  });
  expect(JSON.parse(rendered.content[0].text)).toMatchObject({ html: '<p>Ada</p>', missing_variables: ['order.number'] });
  const denied: any = await reader.client.callTool({
    name: 'email',
    arguments: { action: 'send_email', to: 'ada@example.com', template_id: tpl.body.id },
  });
  expect(denied.isError).toBe(true);
  expect(denied.content[0].text).toContain('marketing:write');
  await reader.client.close();

  for (const scope of ['marketing', 'marketing:write']) {
    const writer = await mcpClient(h, { key: await h.newKey([scope]) });
    const sent: any = await writer.client.callTool({
      name: 'email',
      arguments: { action: 'send_email', to: 'ada@example.com', template_id: tpl.body.id, variables: { customer: { name: 'Ada' } } },
    });
    expect(sent.isError, sent.content[0].text).toBeFalsy();
    expect(JSON.parse(sent.content[0].text)).toMatchObject({ object: 'email_message', status: 'queued' });
    await writer.client.close();
  }

  const none = await mcpClient(h, { key: await h.newKey(['products:read']) });
  expect((await none.client.listTools()).tools.map((t) => t.name)).not.toContain('email');
  await none.client.close();
});
