import type { PageDef } from '../../../console/src/kit';
import { QrAnalyticsPage } from './analytics';
import { QrCodesPage } from './codes';

/** The QR code pages of the console (console/README.md: how a plugin adds pages). */
export const consolePages: PageDef[] = [
  { id: 'qr-codes', title: 'QR codes', order: 80, visible: (c) => c.can('marketing:read'), component: QrCodesPage },
  { id: 'qr-analytics', title: 'QR analytics', order: 90, visible: (c) => c.can('marketing:read'), component: QrAnalyticsPage },
];
