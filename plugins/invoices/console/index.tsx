import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'invoices',
    title: 'Invoices',
    order: 65,
    visible: (c) => c.may('invoices.list_invoices'),
    load: () => import('./invoices').then((m) => m.InvoicesPage),
  },
];
