import type { PageDef } from '../../../console/src/kit';

/** The QR code pages of the console (console/README.md: how a plugin adds pages). */
export const consolePages: PageDef[] = [
  {
    id: 'qr-codes',
    title: 'QR codes',
    order: 80,
    visible: (c) => c.may('qr_codes.list_qr_codes'),
    load: () => import('./codes').then((m) => m.QrCodesPage),
  },
  {
    id: 'qr-analytics',
    title: 'QR analytics',
    order: 90,
    visible: (c) => c.may('qr_codes.campaign_analytics'),
    load: () => import('./analytics').then((m) => m.QrAnalyticsPage),
  },
];
