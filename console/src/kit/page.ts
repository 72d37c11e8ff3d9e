import type { FunctionComponent } from 'preact';
import type { ConsoleCtx } from '../context';

/**
 * One page of the console. `id` is its address (`#/<id>`, and `#/<id>/<arg>` for what follows);
 * `visible` hides it from users who could not use it (`(c) => c.may('products.list_products')`;
 * the API refuses them anyway); `order` places it in the navigation (smaller first, within its
 * group); `group: 'Settings'` files it under Settings. `load` brings the page's code when it is
 * first opened, `() => import('./products').then((m) => m.ProductsPage)`: the build puts each
 * dynamic import in a file of its own, so the first load carries only the list of pages. A plugin
 * exports its pages as `consolePages` from `plugins/<name>/console/index.tsx`.
 */
export interface PageDef {
  id: string;
  title: string;
  order: number;
  group?: 'Settings';
  visible?: (ctx: ConsoleCtx) => boolean;
  load: () => Promise<FunctionComponent>;
}

/**
 * The navigation: every page of the console and of the plugins, the main group before Settings,
 * each by `order` (then title). Two pages with one id would shadow each other: that is refused.
 */
export function arrangePages(lists: readonly (readonly PageDef[])[]): PageDef[] {
  const all = lists.flat();
  const seen = new Set<string>();
  for (const p of all) {
    if (seen.has(p.id)) throw new Error(`Two console pages have the id "${p.id}".`);
    seen.add(p.id);
  }
  const groupRank = (p: PageDef) => (p.group === 'Settings' ? 1 : 0);
  return all.sort((a, b) => groupRank(a) - groupRank(b) || a.order - b.order || a.title.localeCompare(b.title));
}
