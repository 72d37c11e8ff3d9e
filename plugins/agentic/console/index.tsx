import type { PageDef } from '../../../console/src/kit';

/** Settings → Agentic commerce: UCP and ACP on or off, the store's hostnames, payments. */
export const consolePages: PageDef[] = [
  {
    id: 'agentic',
    title: 'Agentic commerce',
    group: 'Settings',
    order: 50,
    visible: (c) => c.may('agentic.get_agentic_settings'),
    load: () => import('./agentic').then((m) => m.AgenticPage),
  },
];
