import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'storefront',
    title: 'Storefront',
    group: 'Settings',
    order: 40,
    visible: (c) => c.may('storefront.get_config'),
    load: () => import('./storefront').then((m) => m.StorefrontPage),
  },
];
