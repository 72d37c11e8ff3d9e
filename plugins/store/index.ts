import { action, conflict, definePlugin, Input, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_store_settings.sql' with { type: 'text' };
import migration002 from './migrations/002_phone_number.sql' with { type: 'text' };
import migration003 from './migrations/003_store_timezone.sql' with { type: 'text' };
import { PlanInfo, SettingsUpdate, StoreInfo } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { getPlan, getStore, updateSettings } = onFirstCall(() => import('./store'));

/** SPEC 4.10 `store`: the store itself, its settings and its plan's limits. */
const store = definePlugin({
  name: 'store',
  category: 'platform',
  description:
    "The store itself: its name and settings (currency, time zone, address, number prefixes, whether prices include tax) and its plan's limits.",
  resource: 'store',
  catalog: true,
  // SPEC 5.4 lists platform and platform:read; writes also take platform:write, as email's did.
  scopes: { read: ['platform', 'platform:read', 'platform:write'], write: ['platform', 'platform:write'] },
  errors: { hostname_taken: conflict('Another store of the instance already claims one of the hostnames; the message names it.') },
  tables: ['store_settings'],
  events: { 'store.settings_updated': StoreInfo },
  migrations: [
    { id: 'store/001_store_settings', sql: migration001 },
    { id: 'store/002_phone_number', sql: migration002 },
    { id: 'store/003_store_timezone', sql: migration003 },
  ],
  actions: {
    get_store: action({
      kind: 'read',
      description: 'This store: id, name, plan and settings (currency, timezone, address, contact, prefixes, prices_include_tax).',
      input: Input({}),
      output: StoreInfo,
      rest: { method: 'GET', path: '/store' },
      handler: getStore,
    }),
    update_settings: action({
      kind: 'write',
      description:
        "Change the store's name or settings; fields left out keep their value, null clears address, contact_email, website_url or phone_number. A bad currency or timezone is 400.",
      input: SettingsUpdate,
      output: StoreInfo,
      rest: { method: 'PATCH', path: '/settings' },
      emits: ['store.settings_updated'],
      errors: ['hostname_taken'],
      example: { timezone: 'Europe/Berlin', contact_email: 'shop@example.com' },
      handler: updateSettings,
    }),
    get_plan: action({
      kind: 'read',
      description: "The store's plan and its limits (requests per minute, emails per hour, ...); null means unlimited.",
      input: Input({}),
      output: PlanInfo,
      rest: { method: 'GET', path: '/plan' },
      handler: getPlan,
    }),
  },
});
export default store;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'store', typeof store> {}
}
