import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'segments',
    title: 'Segments',
    order: 72,
    visible: (c) => c.may('segments.list_segments'),
    load: () => import('./segments').then((m) => m.SegmentsPage),
  },
];
