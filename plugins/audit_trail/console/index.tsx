import type { PageDef } from '../../../console/src/kit';

/** The audit trail page (console/README.md: how a plugin adds pages). */
export const consolePages: PageDef[] = [
  {
    id: 'audit-trail',
    title: 'Audit trail',
    order: 160,
    visible: (c) => c.may('audit_trail.list_events'),
    load: () => import('./audit').then((m) => m.AuditTrailPage),
  },
];
