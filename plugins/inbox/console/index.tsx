import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  { id: 'inbox', title: 'Inbox', order: 100, visible: (c) => c.may('inbox.list_threads'), load: () => import('./inbox').then((m) => m.InboxPage) },
];
