import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'customers',
    title: 'Customers',
    order: 70,
    visible: (c) => c.may('customers.list_customers'),
    load: () => import('./customers').then((m) => m.CustomersPage),
  },
];
