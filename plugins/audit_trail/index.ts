import { Type } from '@sinclair/typebox';
import { actionFor, definePlugin, job, noExample, type ActionsOf, onFirstCall } from '../../core/sdk';
import { AuditConfig } from './config';
import migration001 from './migrations/001_audit_events.sql' with { type: 'text' };
import { AuditEvent, AuditId, AuditList, AuditQuery, ExportOut, ExportQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { record } = onFirstCall(() => import('./record'));
const { exportEvents, getEvent, listEvents, prune } = onFirstCall(() => import('./store'));

const action = actionFor(AuditConfig);
const FILTERS = 'Filters: type (comma-separated), actor_id, resource_id, resource_type, from, to (dates in the store time zone, or date-times).';

const audit_trail = definePlugin({
  name: 'audit_trail',
  category: 'platform',
  description: 'Every domain event and administrative act of the store: who (actor), what (type, resource, data), when, in which request. Read only.',
  resource: 'audit event',
  catalog: true,
  // SPEC 5.4: platform, platform:read; nothing writes it but the reaction.
  scopes: { read: ['platform', 'platform:read'], write: ['platform'] },
  tables: ['audit_events'],
  requires: ['store', 'users'],
  config: AuditConfig,
  migrations: [{ id: 'audit_trail/001_audit_events', sql: migration001 }],
  // Every declared event type, subscribed or not (plugins/README.md "Reacting to events": '*').
  on: { '*': record },
  jobs: {
    prune: job({
      description: 'Deletes audit events older than SVC_AUDIT_TRAIL_RETENTION_DAYS (0 keeps all).',
      input: Type.Object({}),
      cron: '41 3 * * *',
      handler: async (ctx) => {
        const out = await prune(ctx.db, ctx.clock.now(), (ctx.config as { retention_days: number }).retention_days);
        ctx.log.info('audit events pruned', out);
        return out;
      },
    }),
  },
  actions: {
    list_events: action({
      kind: 'read',
      description: `List audit events, newest first. ${FILTERS}`,
      input: AuditQuery,
      output: AuditList,
      rest: { method: 'GET', path: '/audit-events' },
      handler: listEvents,
    }),
    export: action({
      kind: 'read',
      description: `Export audit events, oldest first, as csv or jsonl (format); as a tool, a signed link valid 15 minutes. ${FILTERS}`,
      input: ExportQuery,
      output: ExportOut,
      rest: { method: 'GET', path: '/audit-events/export', response: 'raw', contentType: 'text/csv', asTool: 'link' },
      handler: exportEvents,
    }),
    get_event: action({
      kind: 'read',
      description: 'Fetch one audit event.',
      input: AuditId,
      output: AuditEvent,
      rest: { method: 'GET', path: '/audit-events/:id' },
      example: noExample('audit events are written by a reaction, which the sweeps do not run'),
      handler: (ctx, { id }) => getEvent(ctx, id),
    }),
  },
});
export default audit_trail;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'audit_trail', typeof audit_trail> {}
}
