import type { PageDef } from '../../../console/src/kit';

/** The analytics dashboard (console/README.md: how a plugin adds pages). */
export const consolePages: PageDef[] = [
  {
    id: 'analytics',
    title: 'Analytics',
    order: 68,
    visible: (c) => c.may('analytics.sales_report'),
    load: () => import('./dashboard').then((m) => m.AnalyticsPage),
  },
];
