import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  { id: 'agents', title: 'Agents', order: 30, visible: (c) => c.may('agents.list_agents'), load: () => import('./agents').then((m) => m.AgentsPage) },
];
