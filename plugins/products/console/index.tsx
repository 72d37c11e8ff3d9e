import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'products',
    title: 'Products',
    order: 50,
    visible: (c) => c.may('products.list_products'),
    load: () => import('./products').then((m) => m.ProductsPage),
  },
];
