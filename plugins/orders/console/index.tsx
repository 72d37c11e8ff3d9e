import type { PageDef } from '../../../console/src/kit';
import { OrdersPage } from './orders';

export const consolePages: PageDef[] = [{ id: 'orders', title: 'Orders', order: 60, visible: (c) => c.can('orders:read'), component: OrdersPage }];
