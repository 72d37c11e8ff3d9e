/**
 * A plugin added as one folder is reached everywhere, with no other file touched. The notes
 * fixture (test/fixtures/notes: migration, schemas, store on core/db/rows.ts, declaration) is
 * registered only here and in the sweeps, through setup({ extra: [notes] }). It gets REST routes,
 * OpenAPI operations, MCP tools, agent tools, a webhook event type endpoints can subscribe to and
 * receive, and the convention sweeps (test/contract/sweeps-*.test.ts assert they covered it).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { listTools } from '../../core/tools/catalog';
import notes from '../fixtures/notes';
import { events, fakeServer, openai } from '../kit/fake-models';
import { mcpClient } from '../kit/mcp';
import { setup } from '../kit/setup';
import { listToolNames } from '../kit/sweep';

const model = fakeServer([openai.tools({ name: 'notes', input: { action: 'create_note', title: 'Written by the agent' } }), openai.text('Noted.')]);
afterAll(() => model.stop());

describe('a new plugin, registered and nothing else', () => {
  test('REST: the CRUD routes work under the store, with the conventions', async () => {
    const h = await setup({ extra: [notes] });
    const made = await h.call('POST', '/notes', { title: 'Restock', body: 'Aprons', pinned: true });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'note', title: 'Restock', body: 'Aprons', pinned: true });
    expect((await h.call('GET', `/notes/${made.body.id}`)).body).toEqual(made.body);
    expect((await h.call('PATCH', `/notes/${made.body.id}`, { body: null })).body.body).toBeNull();
    expect((await h.call('GET', '/notes?pinned=true')).body.data.map((n: any) => n.id)).toEqual([made.body.id]);
    expect((await h.call('DELETE', `/notes/${made.body.id}`)).body).toEqual({ id: made.body.id, object: 'note', deleted: true });
    const gone = await h.call('GET', `/notes/${made.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toContain('No such note');
  });

  test('OpenAPI: /openapi.json lists its operations and its event', async () => {
    const h = await setup({ extra: [notes] });
    const doc = (await h.raw('GET', '/openapi.json', undefined, { 'x-api-key': '' })).body;
    const path = doc.paths['/v1/stores/{storeId}/notes/{id}'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'patch']);
    expect(path.get.operationId).toBe('notes_get_note');
    expect(doc.paths['/v1/stores/{storeId}/notes'].post.operationId).toBe('notes_create_note');
    expect(JSON.stringify(doc)).toContain('note.created');
  });

  test('MCP: tools/list has it, grouped and flat, and a call reaches it', async () => {
    const h = await setup({ extra: [notes] });
    const grouped = await mcpClient(h);
    expect(await listToolNames(grouped.client)).toContain('notes');
    const r: any = await grouped.client.callTool({ name: 'notes', arguments: { action: 'create_note', title: 'Over MCP' } });
    expect(r.structuredContent).toMatchObject({ object: 'note', title: 'Over MCP' });
    await grouped.client.close();
    const flat = await mcpClient(h, { query: '?tools=flat' });
    expect(await listToolNames(flat.client)).toEqual(
      expect.arrayContaining(['notes_list_notes', 'notes_get_note', 'notes_create_note', 'notes_update_note', 'notes_delete_note']),
    );
    await flat.client.close();
  });

  test('agents: its tool is offered to an agent that names it, and the model can call it', async () => {
    const h = await setup({ extra: [notes], env: { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'sk-test' } });
    const principal = { kind: 'api_key' as const, keyId: 'k', storeId: h.store.id, scopes: ['notes:read'], livemode: false };
    expect(listTools(h.registry, principal, { mode: 'grouped', readOnly: false }).map((t) => t.name)).toEqual(['notes', 'discover_tools']);
    const agent = (await h.call('POST', '/agents', { name: 'Scribe', model: 'openai/gpt-test', tools: ['notes'] })).body;
    const chat = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Note that we are out of aprons.' });
    expect(events(chat.body).map((e: any) => e.type)).toEqual(['tool_use', 'tool_result', 'text', 'end']);
    expect(model.requests[0].body.tools.map((t: any) => t.function.name)).toEqual(['notes', 'discover_tools']);
    expect((await h.call('GET', '/notes')).body.data.map((n: any) => n.title)).toEqual(['Written by the agent']);
  });

  test('events: note.created is a registered type, an endpoint subscribes to it and a delivery is queued when a note is made', async () => {
    const h = await setup({ extra: [notes] });
    expect(h.registry.events.has('note.created')).toBe(true);
    const hook = await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/notes', events: ['note.created'] });
    expect(hook.status).toBe(201);
    const note = await h.call('POST', '/notes', { title: 'Announce me' });
    const deliveries = await h.call('GET', `/webhooks/${hook.body.id}/deliveries`);
    expect(deliveries.body.data.map((d: any) => [d.event_type, d.status])).toEqual([['note.created', 'pending']]);
    // The payload sent is the note as the API returned it (SPEC 2.8).
    const [event] = await h.db.query(`SELECT body FROM events WHERE store_id = $1 AND type = 'note.created'`, [h.store.id]);
    expect(JSON.parse(event.body).data).toEqual(note.body);
  });
});
