import type { PageDef } from '../../../console/src/kit';
import { CustomersPage } from './customers';

export const consolePages: PageDef[] = [
  { id: 'customers', title: 'Customers', order: 70, visible: (c) => c.can('customers:read'), component: CustomersPage },
];
