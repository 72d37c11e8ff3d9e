import { notifyToolsChanged } from '../../core/mcp/http';
import { forgetCustomTools } from '../../core/tools/custom';

/**
 * After a change to a store's tool list ('public': a public tool's, which any store may have
 * enabled): forget cached copies and tell connected MCP clients once the change is visible. The
 * writes run outside a transaction (atomic actions), so they are committed already; with an
 * Idempotency-Key REST wraps them in one after all, which commits right after the handler returns,
 * well within the delay.
 */
export function announce(storeId: string, visibility: string, notify = true) {
  const scope = visibility === 'public' ? '*' : storeId;
  forgetCustomTools(scope);
  setTimeout(() => {
    forgetCustomTools(scope); // again: a call between the change and its commit may have cached the old state
    if (notify) void notifyToolsChanged(scope);
  }, 20);
}
