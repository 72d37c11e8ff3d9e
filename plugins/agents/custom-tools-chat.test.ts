/**
 * An agent's `tools` may name custom tools (SPEC 4.2) beside categories: those tools are offered to
 * the model, run through the one tool-call path (audited), and their results go back to it.
 */
import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { events, fakeServer, openai, USAGE, type Reply } from '../../test/kit/fake-models';

let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});
beforeAll(() => sharedDb(), 60_000); // migrations: not within the first test's time limit

/** A store with JavaScript tools, an agent with `tools`, and a scripted model. */
async function harness(replies: Reply[], tools: string[]) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const h = await setup({ env: { ...{ OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' } } });
  const js = async (name: string, code: string) => {
    const r = await h.call('POST', '/tools', {
      name,
      description: `The ${name} tool.`,
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
      execution_type: 'javascript',
      execution_config: { code },
    });
    expect(r.status).toBe(201);
  };
  await js('double_it', 'return { doubled: params.n * 2 };');
  await js('answer', 'return 42;');
  await js('not_given', 'return "never";');
  const agent = (await h.call('POST', '/agents', { name: 'Helper', model: 'openai/gpt-test', system_prompt: 'Be brief.', tools })).body;
  expect(agent.tools).toEqual(tools);
  const chat = async (message: string) => events((await h.call('POST', `/agents/${agent.id}/chat`, { message })).body);
  /** The tool names offered to the model in its nth request. */
  const offered = (nth: number) => fake.requests[nth].body.tools.map((t: any) => t.function.name);
  /** The tool results the model got in its nth request. */
  const toolResults = (nth: number) => fake.requests[nth].body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
  return { h, fake, agent, chat, offered, toolResults };
}

describe("custom tools named in an agent's tools", () => {
  test('tools: ["double_it"]: the tool is offered, called, audited, and its result reaches the model', async () => {
    const { h, agent, chat, offered, toolResults } = await harness(
      [openai.tools({ name: 'double_it', input: { n: 21 } }), openai.text('It is 42.')],
      ['double_it'],
    );
    const ev = await chat('Double 21');
    expect(ev).toEqual([
      { type: 'tool_use', tool: 'double_it', input: { n: 21 } },
      { type: 'tool_result', tool: 'double_it', execution_id: expect.any(String), status: 'success', result: { doubled: 42 } },
      { type: 'text', text: 'It is 42.' },
      { type: 'end', usage: { input_tokens: 2 * USAGE.input_tokens, output_tokens: 2 * USAGE.output_tokens } },
    ]);
    expect(offered(0)).toEqual(['double_it', 'discover_tools']);
    expect(toolResults(1)).toEqual([JSON.stringify({ doubled: 42 })]);
    const log = await h.call('GET', '/tool-executions?tool=double_it');
    expect(log.body.executions).toEqual([
      expect.objectContaining({
        id: ev[1].execution_id,
        tool: 'double_it',
        action: 'run',
        status: 'success',
        source: 'agent',
        agent_id: agent.id,
        agent_name: 'Helper',
        input: { n: 21 },
        output: { doubled: 42 },
      }),
    ]);
  });

  test('a mix of categories and custom names: each is offered and callable (grouped or flat names); others are not', async () => {
    const { h, chat, offered, toolResults } = await harness(
      [
        openai.tools(
          { name: 'products', input: { action: 'list_products' } },
          { name: 'products_list_products', input: { limit: 1 } },
          { name: 'answer', input: {} },
          { name: 'discover_tools', input: { tool_name: 'double_it' } },
          { name: 'not_given', input: {} },
          { name: 'orders', input: { action: 'list_orders' } },
        ),
        openai.text('Done.'),
      ],
      ['products', 'double_it', 'answer'],
    );
    await h.call('POST', '/products', product({ name: 'Lamp' }));
    const ev = await chat('Look around');
    expect(ev.map((e) => e.type)).toEqual([...Array(6).fill(['tool_use', 'tool_result']).flat(), 'text', 'end']);
    // discover_tools and tools the agent was not given make no execution record.
    expect(ev.filter((e) => e.type === 'tool_result').map((e) => [e.tool, e.status, e.execution_id === null])).toEqual([
      ['products', 'success', false],
      ['products_list_products', 'success', false],
      ['answer', 'success', false],
      ['discover_tools', 'success', true],
      ['not_given', 'error', true],
      ['orders', 'error', true],
    ]);
    expect(offered(0)).toEqual(['products', 'answer', 'double_it', 'discover_tools']);
    const [grouped, flat, answer, discovered, notGiven, orders] = toolResults(1).map((c: string) => JSON.parse(c));
    expect(grouped.data.map((p: any) => p.name)).toEqual(['Lamp']);
    expect(flat.data.map((p: any) => p.name)).toEqual(['Lamp']);
    expect(answer).toBe(42); // a result that is not an object reaches the model as it is
    expect(discovered).toMatchObject({ tool: 'double_it', actions: [{ action: 'run', input_schema: { properties: { n: { type: 'number' } } } }] });
    expect(notGiven.error).toContain("Unknown tool 'not_given'");
    expect(orders.error).toContain("Unknown tool 'orders'");
    const log = await h.call('GET', '/tool-executions');
    expect(log.body.executions.map((e: any) => [e.tool, e.status]).sort()).toEqual([
      ['answer', 'success'],
      ['products', 'success'],
      ['products', 'success'],
    ]);
  });

  test('tools: ["custom_tools"] offers every custom tool of the store, beside the category\'s own read actions', async () => {
    const { chat, offered } = await harness([openai.text('Hi.')], ['custom_tools']);
    await chat('Hi');
    expect(offered(0).sort()).toEqual(['answer', 'custom_tools', 'discover_tools', 'double_it', 'not_given']);
  });
});
