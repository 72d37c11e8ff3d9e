import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'tax-rates',
    title: 'Tax rates',
    order: 64,
    visible: (c) => c.may('tax.list_rates'),
    load: () => import('./tax-rates').then((m) => m.TaxRatesPage),
  },
];
