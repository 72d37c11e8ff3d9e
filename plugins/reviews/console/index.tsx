import type { PageDef } from '../../../console/src/kit';

export const consolePages: PageDef[] = [
  {
    id: 'reviews',
    title: 'Reviews',
    order: 55,
    visible: (c) => c.may('reviews.list_reviews'),
    load: () => import('./reviews').then((m) => m.ReviewsPage),
  },
];
