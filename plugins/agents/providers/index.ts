/**
 * Model providers behind one interface, chosen by the agent's `model` string.
 *
 * The wire is the vendors' official SDKs (`openai`, `@anthropic-ai/sdk`): retries with backoff
 * honouring Retry-After, typed stop reasons, usage. The loop stays ours (chat.ts), not an agent
 * framework's: tool calls must go through core/tools/call.ts with the caller's principal, a step
 * limit, persistence, and exact control of aborts and error surfacing. The fake-server tests
 * (test/kit/fake-models.ts) pin both formats.
 */
import { errors } from '../../../core/sdk';
import { anthropicProvider } from './anthropic';
import { openaiProvider } from './openai';
import type { ModelProvider } from './types';

export type ProviderEnv = Record<string, string | undefined>;

const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com/v1';

// A missing setting is the operator's to fix, not the client's input: 400 provider_not_configured.
const missing = (setting: string, model: string) => errors.notConfigured(setting, `model '${model}' needs it`);

/**
 * The provider for `openai/<model>` or `anthropic/<model>` and the provider's own model name; a
 * provider that is not configured is a 400 naming the missing setting (never an invented reply).
 * Base URLs are operator settings, so calls to them bypass the egress guard (tests use 127.0.0.1).
 */
export function providerFor(model: string, env: ProviderEnv): { provider: ModelProvider; model: string } {
  const slash = model.indexOf('/');
  const vendor = model.slice(0, slash);
  const name = model.slice(slash + 1);
  if (vendor === 'openai') {
    // The key is optional: local OpenAI-compatible servers (Ollama, vLLM) take none.
    if (!env.OPENAI_BASE_URL) throw missing('OPENAI_BASE_URL', model);
    return { provider: openaiProvider(env.OPENAI_BASE_URL, env.OPENAI_API_KEY || undefined), model: name };
  }
  if (vendor === 'anthropic') {
    if (!env.ANTHROPIC_API_KEY) throw missing('ANTHROPIC_API_KEY', model);
    return { provider: anthropicProvider(env.ANTHROPIC_BASE_URL || ANTHROPIC_DEFAULT_BASE, env.ANTHROPIC_API_KEY), model: name };
  }
  throw errors.validation(`Unknown model provider in '${model}': use openai/<model> or anthropic/<model>.`, 'model');
}
