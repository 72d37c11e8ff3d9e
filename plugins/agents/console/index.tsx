import type { PageDef } from '../../../console/src/kit';
import { AgentsPage } from './agents';

export const consolePages: PageDef[] = [{ id: 'agents', title: 'Agents', order: 30, visible: (c) => c.can('ai:read'), component: AgentsPage }];
