import type { Migration } from './db/migrate';
import type { PluginDef } from './plugins/contract';
import core001 from './db/migrations/001_core.sql' with { type: 'text' };
import core002 from './db/migrations/002_stock.sql' with { type: 'text' };
import core003 from './db/migrations/003_mcp_sessions.sql' with { type: 'text' };
import core004 from './db/migrations/004_webhooks.sql' with { type: 'text' };
import core005 from './db/migrations/005_tools.sql' with { type: 'text' };
import core006 from './db/migrations/006_webhook_secrets_sealed.sql' with { type: 'text' };
import core007 from './db/migrations/007_public_tools.sql' with { type: 'text' };

/** Core migrations first, then each plugin's in registry order. */
export function allMigrations(plugins: PluginDef[]): Migration[] {
  return [{ id: 'core/001_core', sql: core001 }, { id: 'core/002_stock', sql: core002 },
    { id: 'core/003_mcp_sessions', sql: core003 }, { id: 'core/004_webhooks', sql: core004 },
    { id: 'core/005_tools', sql: core005 }, { id: 'core/006_webhook_secrets_sealed', sql: core006 },
    { id: 'core/007_public_tools', sql: core007 },
    ...plugins.flatMap((p) => p.migrations ?? [])];
}
