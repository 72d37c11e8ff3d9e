import type { FunctionComponent } from 'preact';
import type { ConsoleCtx } from '../context';
import { ApprovalsPage } from './approvals';
import { ExecutionsPage } from './executions';
import { ProductsPage } from './products';
import { ApiKeysPage } from './api-keys';
import { MembersPage } from './members';
import { StorePage } from './store';
import { AgentsPage } from './agents';
import { CustomToolsPage } from './custom-tools';
import { OrdersPage } from './orders';
import { CustomersPage } from './customers';
import { WebhooksPage } from './webhooks';
import { QrCodesPage } from './qr-codes';
import { QrAnalyticsPage } from './qr-analytics';

import { EmailTemplatesPage } from './email-templates';
import { EmailMessagesPage } from './email-messages';
import { EmailDomainsPage } from './email-domains';
import { InboxPage } from './inbox';
import { EmailStatsPage } from './email-stats';

/**
 * The console's pages, in navigation order. Adding a page is one file in this folder plus one line
 * here (console/README.md). `id` is its address (`#/<id>`); `visible` hides it from roles that
 * could not use it (the API refuses them anyway).
 */
export interface PageDef {
  id: string;
  title: string;
  group?: 'Settings';
  visible?: (ctx: ConsoleCtx) => boolean;
  component: FunctionComponent;
}

export const pages: PageDef[] = [
  { id: 'approvals', title: 'Approvals', component: ApprovalsPage },
  { id: 'executions', title: 'Tool executions', component: ExecutionsPage },
  { id: 'agents', title: 'Agents', visible: (c) => c.can('ai:read'), component: AgentsPage },
  { id: 'custom-tools', title: 'Custom tools', visible: (c) => c.can('ai:read'), component: CustomToolsPage },
  { id: 'products', title: 'Products', visible: (c) => c.can('products:read'), component: ProductsPage },
  { id: 'orders', title: 'Orders', visible: (c) => c.can('orders:read'), component: OrdersPage },
  { id: 'customers', title: 'Customers', visible: (c) => c.can('customers:read'), component: CustomersPage },
  { id: 'qr-codes', title: 'QR codes', visible: (c) => c.can('marketing:read'), component: QrCodesPage },
  { id: 'qr-analytics', title: 'QR analytics', visible: (c) => c.can('marketing:read'), component: QrAnalyticsPage },

  { id: 'inbox', title: 'Inbox', visible: (c) => c.can('inbox:read'), component: InboxPage },
  { id: 'email-messages', title: 'Email messages', visible: (c) => c.can('marketing:read'), component: EmailMessagesPage },
  { id: 'email-templates', title: 'Email templates', visible: (c) => c.can('marketing:read'), component: EmailTemplatesPage },
  { id: 'email-stats', title: 'Email stats', visible: (c) => c.can('marketing:read'), component: EmailStatsPage },
  { id: 'email-domains', title: 'Email domains', visible: (c) => c.can('marketing:read'), component: EmailDomainsPage },
  { id: 'webhooks', title: 'Webhooks', visible: (c) => c.can('webhooks:read'), component: WebhooksPage },
  { id: 'api-keys', title: 'API keys', group: 'Settings', visible: (c) => c.can('platform:write'), component: ApiKeysPage },
  { id: 'members', title: 'Members', group: 'Settings', component: MembersPage },
  { id: 'store', title: 'Store', group: 'Settings', component: StorePage },
];
