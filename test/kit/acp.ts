/** Test kit for the ACP adapter: a store with ACP on at its own hostname, an agent key, schema checks. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import schema from '../../plugins/checkout/acp/spec/schema.agentic_checkout.json';
import { setup, type Harness } from './setup';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema as object, 'acp');
const validators = new Map<string, ReturnType<typeof ajv.getSchema>>();

/** Errors of `value` against one of the ACP schema's $defs (empty: valid). */
export function acpErrors(def: string, value: unknown): string[] {
  if (!validators.has(def)) validators.set(def, ajv.getSchema(`acp#/$defs/${def}`));
  const v = validators.get(def)!;
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

export interface AcpStore {
  h: Harness;
  host: string;
  key: string;
  /** An ACP request as an agent sends it (API-Version, Bearer key, Idempotency-Key on POSTs). */
  acp(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function acpStore(opts: Parameters<typeof setup>[0] = {}): Promise<AcpStore> {
  const h = await setup(opts);
  const host = `shop-${crypto.randomUUID().slice(0, 8)}.example.com`;
  await h.call('PATCH', '/settings', { hostnames: [host] });
  await h.call('PATCH', '/agentic', { acp: { enabled: true } });
  const key = await h.newKey(['checkout']);
  const acp: AcpStore['acp'] = async (method, path, body, headers = {}) => {
    const r = await h.raw(method, path, body, {
      host,
      authorization: `Bearer ${key}`,
      'x-api-key': '',
      'api-version': '2026-04-17',
      ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
      ...headers,
    });
    return r as any;
  };
  return { h, host, key, acp };
}
