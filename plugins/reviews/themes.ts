import { createHash } from 'node:crypto';
import { chatModel, errorFields, SvcError, type Ctx, type ProviderConfig } from '../../core/sdk';

/** reviews' settings: the provider layer's and the llm tool's model, to know whether a model is configured. */
export interface ReviewsConfig extends ProviderConfig {
  model: string;
}

/** How many of a product's latest approved reviews the themes are drawn from, and how many themes at most. */
export const THEME_REVIEWS = 100;
export const MAX_THEMES = 5;
/** Each review's text handed to the model is cut here, so 100 of them stay within llm's 100,000 characters. */
const REVIEW_CHARS = 900;

const SCHEMA = {
  type: 'object',
  properties: {
    themes: {
      type: 'array',
      maxItems: MAX_THEMES,
      description: `Up to ${MAX_THEMES} short phrases (2 to 6 words each) naming what these reviews most often praise or criticise, most frequent first, e.g. "runs small", "soft fabric", "slow delivery".`,
      items: { type: 'string', minLength: 1, maxLength: 80 },
    },
  },
  required: ['themes'],
  additionalProperties: false,
};

/**
 * Products whose themes call failed lately, until when: a summary read in that window leaves the
 * themes out without asking again, so a provider that is down (each call retried for up to 30 s)
 * or a store at its spend cap does not slow every summary. In this process only; bounded.
 */
const failedUntil = new Map<string, number>();
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;
const MAX_REMEMBERED = 10_000;

/** Whether the operator configured the model llm would use: chatModel throws provider_not_configured otherwise. */
function modelConfigured(c: ReviewsConfig) {
  try {
    chatModel(c.model, c, '');
    return true;
  } catch {
    return false;
  }
}

/**
 * The themes of a product's latest approved reviews through the llm tool (`llm.extract`, as this
 * plugin), or undefined when no model is configured. Kept per product until that set of reviews
 * changes. A model that fails (down, rate limited, the store's spend cap) leaves the themes out
 * of this answer, and of the product's next 5 minutes of answers, and is logged: the ratings do
 * not depend on it.
 */
export async function themesOf(ctx: Ctx<ReviewsConfig>, productId: string): Promise<string[] | undefined> {
  if (!modelConfigured(ctx.config)) return undefined;
  const latest = await ctx.db.query<{ id: string; rating: number; title: string | null; body: string }>(
    `SELECT id, rating, title, body FROM reviews WHERE store_id = $1 AND product_id = $2 AND status = 'approved'
      ORDER BY created_at DESC, seq DESC LIMIT ${THEME_REVIEWS}`,
    [ctx.store.id, productId],
  );
  if (!latest.length) return [];
  const fingerprint = createHash('sha256')
    .update(`${ctx.config.model}\n${latest.map((r) => r.id).join(',')}`)
    .digest('base64url');
  const [kept] = await ctx.db.query<{ themes: unknown }>(
    'SELECT themes FROM review_themes WHERE store_id = $1 AND product_id = $2 AND fingerprint = $3',
    [ctx.store.id, productId, fingerprint],
  );
  if (kept) return (typeof kept.themes === 'string' ? JSON.parse(kept.themes) : kept.themes) as string[];
  const text = latest.map((r) => `[${r.rating}/5] ${r.title ? `${r.title}: ` : ''}${r.body}`.replace(/\s+/g, ' ').slice(0, REVIEW_CHARS)).join('\n');
  const key = `${ctx.store.id}:${productId}`;
  if ((failedUntil.get(key) ?? 0) > ctx.clock.now().getTime()) return undefined;
  let themes: string[];
  try {
    const r = await ctx.call('llm.extract', { text: `Customer reviews of one product, one per line:\n${text}`, schema: SCHEMA });
    themes = [...new Set((r.data.themes as string[]).map((t) => t.trim()).filter(Boolean))].slice(0, MAX_THEMES);
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
    ctx.log.warn('review themes left out: the model call failed', { product_id: productId, ...errorFields(e) });
    if (failedUntil.size >= MAX_REMEMBERED) failedUntil.delete(failedUntil.keys().next().value!);
    failedUntil.set(key, ctx.clock.now().getTime() + RETRY_AFTER_FAILURE_MS);
    return undefined;
  }
  failedUntil.delete(key);
  await ctx.db.query(
    `INSERT INTO review_themes (store_id, product_id, fingerprint, themes, created_at) VALUES ($1, $2, $3, $4::text::jsonb, $5)
     ON CONFLICT (store_id, product_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, themes = EXCLUDED.themes, created_at = EXCLUDED.created_at`,
    [ctx.store.id, productId, fingerprint, JSON.stringify(themes), ctx.clock.now()],
  );
  return themes;
}
