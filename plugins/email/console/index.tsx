import type { PageDef } from '../../../console/src/kit';
import { EmailDomainsPage } from './domains';
import { EmailMessagesPage } from './messages';
import { EmailStatsPage } from './stats';
import { EmailTemplatesPage } from './templates';

const marketing: PageDef['visible'] = (c) => c.can('marketing:read');

/** The email pages of the console: what was sent, templates, numbers, sending domains. */
export const consolePages: PageDef[] = [
  { id: 'email-messages', title: 'Email messages', order: 110, visible: marketing, component: EmailMessagesPage },
  { id: 'email-templates', title: 'Email templates', order: 120, visible: marketing, component: EmailTemplatesPage },
  { id: 'email-stats', title: 'Email stats', order: 130, visible: marketing, component: EmailStatsPage },
  { id: 'email-domains', title: 'Email domains', order: 140, visible: marketing, component: EmailDomainsPage },
];
