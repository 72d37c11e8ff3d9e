import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'campaigns',
    title: 'Campaigns',
    order: 145,
    visible: (c) => c.may('campaigns.list_campaigns'),
    load: () => import('./campaigns').then((m) => m.CampaignsPage),
  },
];
