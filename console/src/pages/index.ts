import { pluginPages } from 'svc:plugin-pages';
import { arrangePages, type PageDef } from '../kit/page';

/**
 * The console's own pages: the approvals inbox and the audit log (fed by the shell's live
 * stream). Every other page (the store's settings: plugins/store/console) comes from its plugin's folder
 * (plugins/<name>/console/index.tsx, found by console/build.ts); `order` interleaves them.
 */
const own: PageDef[] = [
  { id: 'approvals', title: 'Approvals', order: 10, load: () => import('./approvals').then((m) => m.ApprovalsPage) },
  { id: 'executions', title: 'Tool executions', order: 20, load: () => import('./executions').then((m) => m.ExecutionsPage) },
];

export const pages: PageDef[] = arrangePages([own, ...pluginPages]);
