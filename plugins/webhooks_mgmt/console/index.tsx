import type { PageDef } from '../../../console/src/kit';
import { WebhooksPage } from './webhooks';

export const consolePages: PageDef[] = [
  { id: 'webhooks', title: 'Webhooks', order: 150, visible: (c) => c.can('webhooks:read'), component: WebhooksPage },
];
