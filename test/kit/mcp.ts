import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Harness } from './setup';

/**
 * The two ways a tools/call is answered (core/mcp/fast-call.ts skips the SDK for plain calls):
 * the MCP tests run under both, so the SDK path stays tested.
 */
export const MCP_PATHS = ['fast', 'SDK'] as const;

/** An SDK MCP client talking to the in-process app (no port), as a real client would. */
export async function mcpClient(h: Harness, opts: { key?: string; query?: string; apps?: { handle: (r: Request) => Promise<Response> }[] } = {}) {
  const apps = opts.apps ?? [h.app];
  let turn = 0;
  // Each request may land on a different app: several API processes sharing one database.
  const fetchVia = (input: string | URL | Request, init?: RequestInit) => apps[turn++ % apps.length].handle(new Request(input, init));
  const transport = new StreamableHTTPClientTransport(new URL(`http://svc.test/agent/mcp${opts.query ?? ''}`), {
    fetch: fetchVia as typeof fetch,
    requestInit: { headers: { 'x-api-key': opts.key ?? h.key } },
  });
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A custom tool that asks the human behind an MCP call before it runs (`requires_confirmation`); answers its id. */
export async function refundToolAskingFirst(h: Harness): Promise<string> {
  const made = await h.call('POST', '/tools', {
    name: 'refund_order',
    description: 'Refunds an order.',
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    execution_type: 'javascript',
    execution_config: { code: 'return { refunded: params.amount };' },
    requires_confirmation: true,
  });
  if (made.status !== 201) throw new Error(`the confirming tool was not made: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.id;
}
