import type { PageDef } from '../../../console/src/kit';
import { ProductsPage } from './products';

export const consolePages: PageDef[] = [
  { id: 'products', title: 'Products', order: 50, visible: (c) => c.can('products:read'), component: ProductsPage },
];
