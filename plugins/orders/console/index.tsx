import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  { id: 'orders', title: 'Orders', order: 60, visible: (c) => c.may('orders.list_orders'), load: () => import('./orders').then((m) => m.OrdersPage) },
];
