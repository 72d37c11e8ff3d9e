import type { Migration } from './db/migrate';
import type { PluginDef } from './plugins/contract';
import { requiredFirst } from './plugins/registry';
import core001 from './db/migrations/001_core.sql' with { type: 'text' };
import core003 from './db/migrations/003_mcp_sessions.sql' with { type: 'text' };
import core004 from './db/migrations/004_webhooks.sql' with { type: 'text' };
import core005 from './db/migrations/005_tools.sql' with { type: 'text' };
import core006 from './db/migrations/006_webhook_secrets_sealed.sql' with { type: 'text' };
import core007 from './db/migrations/007_idempotency_replay.sql' with { type: 'text' };
import core008 from './db/migrations/008_public_tools.sql' with { type: 'text' };
import core009 from './db/migrations/009_webhook_roll_and_version.sql' with { type: 'text' };
import core010 from './db/migrations/010_change_notifications.sql' with { type: 'text' };
import core011 from './db/migrations/011_session_changes_notify.sql' with { type: 'text' };
import core012 from './db/migrations/012_audit_without_store_check.sql' with { type: 'text' };
import core013 from './db/migrations/013_audit_output_text.sql' with { type: 'text' };
import core014 from './db/migrations/014_migration_checksums.sql' with { type: 'text' };
import core015 from './db/migrations/015_execution_notify.sql' with { type: 'text' };
import core016 from './db/migrations/016_publishable_keys.sql' with { type: 'text' };
import core017 from './db/migrations/017_audit_pages.sql' with { type: 'text' };
import core018 from './db/migrations/018_jobs.sql' with { type: 'text' };
import core019 from './db/migrations/019_provider_usage.sql' with { type: 'text' };
import core020 from './db/migrations/020_event_subscriptions.sql' with { type: 'text' };
import core021 from './db/migrations/021_event_origin.sql' with { type: 'text' };
import core022 from './db/migrations/022_store_instance_tools.sql' with { type: 'text' };
import core023 from './db/migrations/023_mcp_tasks.sql' with { type: 'text' };
import core024 from './db/migrations/024_store_hostnames.sql' with { type: 'text' };
import core025 from './db/migrations/025_store_timezone.sql' with { type: 'text' };
import core026 from './db/migrations/026_mcp_answers.sql' with { type: 'text' };

/**
 * Core migrations first, then each plugin's in registry order, except that a plugin's come after
 * those of the plugins it `requires` (its SQL may reference their tables). There is no
 * core/002_stock any more: the stock tables are the inventory plugin's (inventory/000_stock).
 */
export function allMigrations(plugins: readonly PluginDef[]): Migration[] {
  return [
    { id: 'core/001_core', sql: core001 },
    { id: 'core/003_mcp_sessions', sql: core003 },
    { id: 'core/004_webhooks', sql: core004 },
    { id: 'core/005_tools', sql: core005 },
    { id: 'core/006_webhook_secrets_sealed', sql: core006 },
    { id: 'core/007_idempotency_replay', sql: core007 },
    { id: 'core/008_public_tools', sql: core008 },
    { id: 'core/009_webhook_roll_and_version', sql: core009 },
    { id: 'core/010_change_notifications', sql: core010 },
    { id: 'core/011_session_changes_notify', sql: core011 },
    { id: 'core/012_audit_without_store_check', sql: core012 },
    { id: 'core/013_audit_output_text', sql: core013 },
    { id: 'core/014_migration_checksums', sql: core014 },
    { id: 'core/015_execution_notify', sql: core015 },
    { id: 'core/016_publishable_keys', sql: core016 },
    { id: 'core/017_audit_pages', sql: core017 },
    { id: 'core/018_jobs', sql: core018 },
    { id: 'core/019_provider_usage', sql: core019 },
    { id: 'core/020_event_subscriptions', sql: core020 },
    { id: 'core/021_event_origin', sql: core021 },
    { id: 'core/022_store_instance_tools', sql: core022 },
    { id: 'core/023_mcp_tasks', sql: core023 },
    { id: 'core/024_store_hostnames', sql: core024 },
    { id: 'core/025_store_timezone', sql: core025 },
    { id: 'core/026_mcp_answers', sql: core026 },
    ...requiredFirst(plugins).flatMap((p) => p.migrations ?? []),
  ];
}
