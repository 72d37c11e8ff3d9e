import { type Ctx } from '../../core/sdk';
import { toolsChanged } from '../../core/platform';

/**
 * After a change to a store's tool list ('public': a public tool's, which any store may have
 * enabled): once the change has committed, cached tool lists are dropped and connected MCP clients
 * hear `notifications/tools/list_changed` (the signal's listeners, on this process and, through
 * the database, on the others).
 */
export function announce(ctx: Pick<Ctx, 'afterCommit'>, storeId: string, visibility: string) {
  const scope = visibility === 'public' ? '*' : storeId;
  ctx.afterCommit(() => toolsChanged.emit(scope));
}
