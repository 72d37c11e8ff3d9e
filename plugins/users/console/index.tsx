import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'members',
    title: 'Members',
    order: 20,
    group: 'Settings',
    visible: (c) => c.may('users.list_members'),
    load: () => import('./members').then((m) => m.MembersPage),
  },
];
