import type { ValidateFunction } from 'ajv';
import { lazy, chatModel, errors, fail, metered, type Completion, type Ctx, type ProviderConfig } from '../../core/sdk';

/** What an answer reports beside its result: the model that gave it and the tokens it took (summed over a retry). */
export interface Answer {
  model: string;
  usage: { input_tokens: number; output_tokens: number };
}

// Made at the first structured answer asked for (docs/footprint.md: libraries load on first use).
const ajv = lazy(() => {
  const Ajv: typeof import('ajv').default = require('ajv').default;
  const addFormats: typeof import('ajv-formats').default = require('ajv-formats').default;
  const made = new Ajv({ allErrors: false, strict: false, addUsedSchema: false });
  addFormats(made);
  return made;
});

/** A caller's JSON Schema compiled (a schema Ajv cannot compile is a 400 on `param`). */
export function compile(schema: object, param: string): ValidateFunction {
  try {
    const validate = ajv().compile(schema);
    // Ajv keeps every compiled schema by its object: a caller's schema is used once, so drop it.
    ajv().removeSchema(schema);
    return validate;
  } catch (e) {
    throw errors.validation(`Invalid ${param}: ${(e as Error).message}.`, param);
  }
}

interface Ask {
  model?: string;
  system?: string;
  prompt: string;
  maxTokens?: number;
  schema?: Record<string, unknown>;
}

/** The configured default model (SVC_LLM_MODEL) unless the call names one. */
const modelOf = (ctx: Ctx, model?: string) => model ?? (ctx.config.model as string);

/** One metered model call: the spend cap first, the usage after. */
async function ask(ctx: Ctx, q: Ask): Promise<{ completion: Completion; model: string; provider: string }> {
  const name = modelOf(ctx, q.model);
  const { provider, model } = chatModel(name, ctx.config as ProviderConfig);
  const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
  const completion = await metered(meter, provider.name, model, async () => {
    const c = await provider.complete({ model, system: q.system, prompt: q.prompt, maxTokens: q.maxTokens, schema: q.schema, signal: ctx.shutdown });
    return { value: c, usage: c.usage };
  });
  return { completion, model: name, provider: provider.name };
}

export async function generate(ctx: Ctx, q: Ask) {
  const { completion, model } = await ask(ctx, q);
  return { object: 'llm_generation' as const, text: completion.text, truncated: completion.truncated, model, usage: completion.usage };
}

/**
 * A structured answer checked against `validate`: an answer outside the schema (or not JSON) is
 * asked for once more, then 502 provider_error. Both calls are counted.
 */
export async function structured(ctx: Ctx, q: Ask & { schema: Record<string, unknown> }, validate: ValidateFunction) {
  const usage = { input_tokens: 0, output_tokens: 0 };
  let why = '';
  let asked = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const { completion, model, provider } = await ask(ctx, q);
    asked = provider;
    usage.input_tokens += completion.usage.input_tokens;
    usage.output_tokens += completion.usage.output_tokens;
    if (completion.json !== undefined && validate(completion.json)) return { value: completion.json, model, usage };
    const err = validate.errors?.[0];
    why =
      completion.json === undefined ? 'its answer was not JSON' : `its answer ${err?.instancePath || ''} ${err?.message ?? 'does not match'}`.trim();
  }
  throw fail('provider_error', `${asked} answered outside the requested schema twice (${why}).`);
}
