import type { Static } from '@sinclair/typebox';
import { errors, type Ctx } from '../../core/sdk';
import { secretBox } from '../../core/sdk';
import { generateSecret } from '../../core/platform';
import type { WebhookRoll } from './schemas';
import { endpointRow, toEndpoint } from './store';

const HOUR_MS = 3600_000;

/** The secret currently signing, if this process can open it (a plain one predates sealing). */
function currentSecret(row: Record<string, any>): string | undefined {
  if (!row.sealed_secret) return row.secret ?? undefined;
  try {
    return secretBox().open(row.sealed_secret);
  } catch {
    return undefined;
  }
}

/**
 * Replaces the signing secret. The replaced one keeps signing beside the new one for
 * `expires_in_hours` (default 24; 0 drops it now), so a receiver can switch without a gap:
 * Standard Webhooks' `webhook-signature` then carries both, the SPEC 6.1 headers the new one.
 * Rolling again during a window replaces the previous secret: at most two sign at once.
 *
 * One UPDATE of the locked row changes both secrets: a delivery reads the row once when it is
 * claimed, so it is signed either before the roll (old secret) or after it (new, plus old while
 * the window lasts), never with a mix. Both stay sealed at rest; the new one is shown this once.
 */
export async function rollSecret(ctx: Ctx, input: Static<typeof WebhookRoll>) {
  const cur = await endpointRow(ctx, input.id, true);
  const now = ctx.clock.now();
  const current = currentSecret(cur);
  if (input.secret !== undefined && input.secret === current)
    throw errors.validation('Invalid secret: it is the current signing secret; a roll needs a new one.', 'secret');
  const secret = input.secret ?? generateSecret();
  const hours = input.expires_in_hours ?? 24;
  // The replaced secret moves over still sealed; one stored plain before sealing is sealed now.
  const previous = hours > 0 ? (cur.sealed_secret ?? (cur.secret ? secretBox().seal(cur.secret) : null)) : null;
  const [row] = await ctx.db.query(
    `UPDATE webhook_endpoints SET sealed_secret = $3, secret = NULL, previous_sealed_secret = $4,
       previous_secret_expires_at = $5, updated_at = $6
     WHERE store_id = $1 AND id = $2 RETURNING *`,
    [ctx.store.id, cur.id, secretBox().seal(secret), previous, previous ? new Date(now.getTime() + hours * HOUR_MS) : null, now],
  );
  return { ...toEndpoint(row, now), signing_secret: secret };
}
