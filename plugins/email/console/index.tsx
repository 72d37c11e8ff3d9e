import type { PageDef } from '../../../console/src/kit';

/** The email pages of the console: what was sent, templates, numbers, sending domains; each loaded when opened. */
export const consolePages: PageDef[] = [
  {
    id: 'email-messages',
    title: 'Email messages',
    order: 110,
    visible: (c) => c.may('email.list_messages'),
    load: () => import('./messages').then((m) => m.EmailMessagesPage),
  },
  {
    id: 'email-templates',
    title: 'Email templates',
    order: 120,
    visible: (c) => c.may('email.list_templates'),
    load: () => import('./templates').then((m) => m.EmailTemplatesPage),
  },
  {
    id: 'email-stats',
    title: 'Email stats',
    order: 130,
    visible: (c) => c.may('email.email_stats'),
    load: () => import('./stats').then((m) => m.EmailStatsPage),
  },
  {
    id: 'email-domains',
    title: 'Email domains',
    order: 140,
    visible: (c) => c.may('email.list_domains'),
    load: () => import('./domains').then((m) => m.EmailDomainsPage),
  },
];
