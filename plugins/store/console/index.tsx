import type { PageDef } from '../../../console/src/kit';

/** Settings → Store (it took over the console's own store page): every user sees it, editing needs update_settings. */
export const consolePages: PageDef[] = [
  { id: 'store', title: 'Store', group: 'Settings', order: 30, load: () => import('./store').then((m) => m.StorePage) },
];
