import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'coupons',
    title: 'Coupons',
    order: 62,
    visible: (c) => c.may('coupons.list_coupons'),
    load: () => import('./coupons').then((m) => m.CouponsPage),
  },
];
