import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'api-keys',
    title: 'API keys',
    order: 10,
    group: 'Settings',
    visible: (c) => c.may('api_keys.list_keys'),
    load: () => import('./api-keys').then((m) => m.ApiKeysPage),
  },
];
