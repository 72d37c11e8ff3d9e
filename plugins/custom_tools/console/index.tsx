import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'custom-tools',
    title: 'Custom tools',
    order: 40,
    visible: (c) => c.may('custom_tools.list_tools'),
    load: () => import('./custom-tools').then((m) => m.CustomToolsPage),
  },
];
