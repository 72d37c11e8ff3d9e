/**
 * Convention sweep (issue 44): the schemas say what the server checks. For every create operation
 * (a POST answering 201), bodies are built from the input schema alone, as a client generator, a
 * Prism mock or an MCP client builds them: required fields only, with their types, formats and
 * patterns, plus what an `if`/`then` asks for. Each must be accepted (2xx). Path ids come from the
 * route's example (the parent must exist); nothing else of the example is used. A body refused
 * means a rule the validator or the handler applies that the schema does not state.
 *
 * The exceptions, each with its reason, are listed below: rules JSON Schema cannot state (a
 * reference to another resource that must exist, state on the server).
 */
import { beforeAll, afterAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import notes from '../fixtures/notes';
import { requiredOnly } from '../kit/arbitrary';
import { freshWorld } from '../kit/examples';
import { setup, type Harness } from '../kit/setup';
import { credentialFor, exampleOr, fakeModel, report, requestFor, send, sweepRoutes } from '../kit/sweep';

/** Create routes whose schema-only body cannot succeed, and why (JSON Schema cannot say it). */
const EXCEPTIONS: Record<string, string> = {
  'orders.create_order': 'line_items[].product_id must name a product of this store with stock (a reference, not a shape)',
  'orders.create_refund': "refunds what is left of a paid order's amount: the order's state on the server",
  'reviews.create_review': 'product_id must name a product of this store (a reference, not a shape)',
  'products.create_variant': "options must give one value for each option its product declares: the parent product's state",
  'custom_tools.create_tool': 'execution_config.code must compile as JavaScript: a parser, not a schema, can say so',
  'custom_tools.create_custom_tool': 'handler.code must compile as JavaScript: a parser, not a schema, can say so',
  'users.create_user': 'password is needed only when the email has no account yet: the server state decides',
  'wholesale.create_bulk_order': 'customer_id must name a customer of this store and each sku one of its products (references, not shapes)',
  'tax.create_rate':
    "percentage has at most 4 decimal places: JSON Schema's multipleOf 0.0001 is inexact in binary floating point, so validators would refuse valid rates",
  'coupons.create_coupon':
    'exactly one of percent_off and amount_off (a oneOf of required sets the generator does not build yet; the descriptions say it)',
  'fulfillment.create_fulfillment': 'order_id must name a paid order of this store (a reference and its state, not a shape)',
  'loyalty.add_points': 'customer_id must name a customer of this store (a reference, not a shape)',
  'loyalty.redeem': "customer_id and reward_id must name this store's customer and reward, and the balance must cover it: the server state",
  'loyalty.create_reward': 'exactly one of percent_off and amount_off (as coupons.create_coupon)',
  'workflows.create_workflow':
    "a cron trigger must parse as a five-field schedule and a tool step must name a registered tool's action: a parser and the registry, not a schema",
  'workflows.trigger_workflow': 'workflow_id must name a workflow of this store (a reference, not a shape)',
  'invoices.create_invoice': 'customer_id must name a customer of this store, order_id one of its orders (references, not shapes)',
  'segments.create_segment':
    "a condition's value must suit its field and operator (a number for orders_count, a date for last_order_at, a list for in): the rules' grammar, which rules.ts checks naming the part",
  'pipeline.create_deal':
    "value has at most the store currency's decimals (2 for USD, 0 for JPY): the store's settings decide, so no fixed multipleOf can say it",
  'fulfillment.create_shipping_zone':
    "amount, weight_rates[].amount and free_over_amount have at most the store currency's decimals (a setting, as pipeline.create_deal)",
  'wallet.add_funds':
    "customer_id must name a customer of this store (a reference, not a shape), and amount has the decimals of the store's currency (a setting)",
  'affiliates.create_affiliate':
    "a percentage commission is at most 100: an if/then on its type (the schema states it; the generator builds only if/then's required and forbidden fields)",
  'affiliates.attribute_order': 'order_id and code must name an order and an affiliate of this store (references, not shapes)',
  'affiliates.create_payout': "pays the affiliate's commissions past their refund window: the server's state",
  'supply_chain.create_po': "supplier_id and line_items[].product_id must name this store's supplier and products (references, not shapes)",
  'campaigns.create_campaign':
    "segment_id and template_id must name this store's segment and marketing template (references, not shapes), and one of send_at or send_now is needed",
  'documents.generate_document':
    "custom prints with Chromium (SVC_CHROMIUM_PATH, a program outside svc); invoice, quote and packing_slip draw an order (order_id, a reference) or data whose prices have the currency's decimals (a setting)",
  'webhooks_mgmt.create_webhook':
    'events[] must be types the registered plugins declare (OpenAPI lists them under webhooks): the registry, not a fixed enum',
};

const SAMPLES = 3;
const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes], env: model.env });
});
afterAll(() => model.stop());

describe('sweep: bodies from the schema alone', () => {
  test('every create operation accepts a body built from its schema alone (required fields, formats, if/then)', async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const covered: string[] = [];
    const excepted: string[] = [];
    for (const route of sweepRoutes(h.registry)) {
      if (route.method !== 'POST' || route.status !== 201 || route.body !== 'json') continue;
      if (EXCEPTIONS[route.name]) {
        excepted.push(`${route.name}: ${EXCEPTIONS[route.name]}`);
        continue;
      }
      const w = await freshWorld(h);
      const example = await exampleOr(w, route, problems, uncovered);
      if (!example) continue;
      covered.push(route.name);
      const schema = JSON.parse(JSON.stringify(route.action.input));
      for (const p of route.params) {
        delete schema.properties?.[p];
        schema.required = (schema.required ?? []).filter((r: string) => r !== p);
      }
      const bodies = fc.sample(requiredOnly(schema), { numRuns: SAMPLES, seed: 44 }) as Record<string, unknown>[];
      for (const body of bodies) {
        const pathIds = Object.fromEntries(route.params.map((p) => [p, example[p]]));
        const { path, body: text } = requestFor(route, w.store.id, { ...body, ...pathIds });
        const res = await send(h, route.method, path, text, credentialFor(route, w));
        if (res.status >= 300) {
          problems.push(`${route.name}: ${text} -> ${res.status} ${res.text.slice(0, 300)}`);
          break;
        }
      }
    }
    report('schema bodies', { 'create routes': covered.length, exceptions: excepted.length }, [...uncovered]);
    for (const e of excepted) console.log(`  exception: ${e}`);
    expect(covered).toEqual(expect.arrayContaining(['notes.create_note', 'products.create_product', 'qr_codes.create_qr_code']));
    expect(problems).toEqual([]);
  }, 300_000);
});
