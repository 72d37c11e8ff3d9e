import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'webhooks',
    title: 'Webhooks',
    order: 150,
    visible: (c) => c.may('webhooks_mgmt.list_webhooks'),
    load: () => import('./webhooks').then((m) => m.WebhooksPage),
  },
];
