import { Type } from '@sinclair/typebox';
import { action, definePlugin, errors, Input, providerSettings } from '../../core/sdk';
import { compile, generate, structured } from './llm';

const Model = Type.String({
  maxLength: 200,
  pattern: '^(openai|anthropic)/.+$',
  errorMessage: 'must be a model as provider/name (openai/... or anthropic/...)',
  description: 'openai/<model> or anthropic/<model>; default SVC_LLM_MODEL.',
});
const Text = (description: string) => Type.String({ minLength: 1, maxLength: 100_000, description });
const Usage = Type.Object({ input_tokens: Type.Integer({ minimum: 0 }), output_tokens: Type.Integer({ minimum: 0 }) });
const Answered = { model: Type.String({ description: 'The model that answered.' }), usage: Usage };

const LlmConfig = Type.Object({
  ...providerSettings,
  model: Type.String({ env: 'SVC_LLM_MODEL', default: 'openai/gpt-4o-mini', pattern: '^(openai|anthropic)/.+$', description: 'The default model.' }),
});

/** A caller's JSON Schema: an object at the root, as structured output needs; at most 16 KiB of JSON. */
function objectSchema(schema: Record<string, unknown>) {
  if (schema.type !== 'object') throw errors.validation('schema must describe an object: {"type": "object", "properties": {...}}.', 'schema');
  if (JSON.stringify(schema).length > 16_384) throw errors.validation('schema is over 16 KiB of JSON.', 'schema');
  return compile(schema, 'schema');
}

/**
 * Text generation, summaries, classification and extraction on the configured chat model
 * (core/providers). Every call is metered for the store and refused at its spend cap.
 */
export default definePlugin({
  name: 'llm',
  category: 'intelligence',
  catalog: true,
  description: 'A language model for text: generate, summarize, classify into given labels, extract an object a JSON Schema describes.',
  scopes: { read: ['ai', 'ai:write'], write: ['ai', 'ai:write'] },
  config: LlmConfig,
  actions: {
    generate: action({
      kind: 'write',
      external: true,
      description: 'Write text for a prompt (optionally with a system prompt, a model and a max_tokens budget).',
      input: Input({
        prompt: Text('What to write.'),
        system: Type.Optional(Type.String({ maxLength: 20_000 })),
        model: Type.Optional(Model),
        max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_000 })),
      }),
      output: Type.Object({
        object: Type.Literal('llm_generation'),
        text: Type.String(),
        truncated: Type.Boolean({ description: 'The token limit cut the text off.' }),
        ...Answered,
      }),
      rest: { method: 'POST', path: '/llm/generate' },
      example: { prompt: 'A one-line tagline for a linen apron.' },
      handler: (ctx, input) => generate(ctx, { prompt: input.prompt, system: input.system, model: input.model, maxTokens: input.max_tokens }),
    }),
    summarize: action({
      kind: 'write',
      external: true,
      description: 'Summarize a text in at most max_words words (default 100).',
      input: Input({
        text: Text('The text to summarize.'),
        max_words: Type.Optional(Type.Integer({ minimum: 5, maximum: 2000 })),
        model: Type.Optional(Model),
      }),
      output: Type.Object({ object: Type.Literal('summary'), summary: Type.String(), ...Answered }),
      rest: { method: 'POST', path: '/llm/summarize' },
      example: { text: 'The apron is linen, washable, with two pockets and adjustable straps.' },
      handler: async (ctx, input) => {
        const words = input.max_words ?? 100;
        const r = await generate(ctx, {
          model: input.model,
          system: `Summarize the user's text in at most ${words} words. Answer with the summary only.`,
          prompt: input.text,
          maxTokens: Math.ceil(words * 2.5) + 50,
        });
        return { object: 'summary' as const, summary: r.text.trim(), model: r.model, usage: r.usage };
      },
    }),
    classify: action({
      kind: 'write',
      external: true,
      description: 'Put a text into exactly one of 2 to 50 labels; answers {label}.',
      input: Input({
        text: Text('The text to classify.'),
        labels: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 2, maxItems: 50, uniqueItems: true }),
        model: Type.Optional(Model),
      }),
      output: Type.Object({ object: Type.Literal('classification'), label: Type.String(), ...Answered }),
      rest: { method: 'POST', path: '/llm/classify' },
      example: { text: 'Where is my parcel? It was due Monday.', labels: ['ok', 'shipping', 'returns'] },
      handler: async (ctx, input) => {
        const schema = {
          type: 'object',
          properties: { label: { type: 'string', enum: input.labels } },
          required: ['label'],
          additionalProperties: false,
        };
        const r = await structured(
          ctx,
          {
            model: input.model,
            system: `Classify the user's text into exactly one of these labels: ${JSON.stringify(input.labels)}. Answer with {"label": <one of them>}.`,
            prompt: input.text,
            schema,
          },
          compile(schema, 'labels'),
        );
        return { object: 'classification' as const, label: (r.value as { label: string }).label, model: r.model, usage: r.usage };
      },
    }),
    extract: action({
      kind: 'write',
      external: true,
      description: 'Extract from a text the object a JSON Schema describes (checked against it); answers the object as data.',
      input: Input({
        text: Text('The text to read.'),
        schema: Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema of an object ({"type": "object", ...}).' }),
        model: Type.Optional(Model),
      }),
      output: Type.Object({ object: Type.Literal('extraction'), data: Type.Record(Type.String(), Type.Unknown()), ...Answered }),
      rest: { method: 'POST', path: '/llm/extract' },
      example: { text: 'Order from Ada Lovelace, ada@example.com.', schema: { type: 'object', properties: { email: { type: 'string' } } } },
      handler: async (ctx, input) => {
        const validate = objectSchema(input.schema);
        const r = await structured(
          ctx,
          {
            model: input.model,
            system: "Extract from the user's text the data the JSON Schema describes. Leave out what the text does not say.",
            prompt: input.text,
            schema: input.schema,
          },
          validate,
        );
        return { object: 'extraction' as const, data: r.value as Record<string, unknown>, model: r.model, usage: r.usage };
      },
    }),
  },
});
