import type { PageDef } from '../../../console/src/kit';
import { CustomToolsPage } from './custom-tools';

export const consolePages: PageDef[] = [
  { id: 'custom-tools', title: 'Custom tools', order: 40, visible: (c) => c.can('ai:read'), component: CustomToolsPage },
];
