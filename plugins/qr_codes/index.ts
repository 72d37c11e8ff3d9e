import { action, conflict, Deleted, definePlugin, invalid, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_qr_codes.sql' with { type: 'text' };
import { QrConfig } from './config';
import {
  Analytics,
  CampaignAnalyticsQuery,
  Page,
  QrAnalyticsQuery,
  QrCode,
  QrCodeRef,
  QrCreate,
  QrGet,
  QrImageQuery,
  QrList,
  QrQuery,
  QrUpdate,
  ScanInput,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { campaignAnalytics, codeAnalytics } = onFirstCall(() => import('./analytics'));
const { followCta, scan } = onFirstCall(() => import('./scan'));
const { settleStore } = onFirstCall(() => import('./scan-buffer'));
const { imageResponse, renderFor } = onFirstCall(() => import('./serve-image'));
const { archiveQrCode, codeRow, createQrCode, deactivateQrCode, listQrCodes, toQrCode, updateQrCode } = onFirstCall(() => import('./store'));

const makeCode = 'qr_codes.create_qr_code';
/** Routes under /qr-codes/:code take the code, not the id the sweeps would derive from the POST. */
const withCode = async ({ make }: { make: (t: string, over?: Record<string, unknown>) => Promise<any> }) => ({ code: (await make(makeCode)).code });
const withCampaign = async ({ make }: { make: (t: string, over?: Record<string, unknown>) => Promise<any> }) => ({
  campaign_name: (await make(makeCode, { campaign_name: `spring-${crypto.randomUUID().slice(0, 8)}` })).campaign_name,
});

export default definePlugin({
  name: 'qr_codes',
  category: 'marketing',
  description: 'Branded QR codes with tracked scans, landing pages, expiry and scan caps, and scan analytics with conversions.',
  resource: 'qr code',
  scopes: { read: ['marketing', 'marketing:read'], write: ['marketing', 'marketing:write'] },
  // orders/public.ts: the scans orders were attributed to (conversions).
  requires: ['orders'],
  tables: ['qr_codes', 'qr_scans', 'qr_scan_devices', 'qr_scan_days', 'qr_fingerprint_key'],
  config: QrConfig,
  events: { 'qr_code.created': QrCode, 'qr_code.updated': QrCode },
  errors: {
    duplicate_code: conflict('Another QR code on this server has this code (codes are unique across the instance).'),
    logo_unavailable: invalid('The logo_url could not be fetched, or is not a PNG of at most 256 KB and 1024 pixels a side.'),
  },
  migrations: [{ id: 'qr_codes/001_qr_codes', sql: migration001 }],
  actions: {
    list_qr_codes: action({
      kind: 'read',
      description: 'List QR codes, newest first; filter by status, type or campaign_name.',
      input: QrQuery,
      output: QrList,
      rest: { method: 'GET', path: '/qr-codes' },
      handler: async (ctx, input) => {
        await settleStore(ctx.db, ctx.store.id);
        return listQrCodes(ctx, input);
      },
    }),
    create_qr_code: action({
      kind: 'write',
      description:
        'Create a QR code: type product, coupon or custom redirects to destination_url; landing_page shows a page (landing_page.title required). Optional expires_at, max_scans, brand_color, logo_url, campaign_name.',
      input: QrCreate,
      output: QrCode,
      rest: { method: 'POST', path: '/qr-codes', status: 201 },
      emits: ['qr_code.created'],
      errors: ['duplicate_code'],
      example: { type: 'custom', destination_url: 'https://shop.example.com/spring', campaign_name: 'spring' },
      handler: createQrCode,
    }),
    get_qr_code: action({
      kind: 'read',
      description: 'Fetch one QR code by its code: status, total_scans, max_scans, remaining; include_image adds the PNG.',
      input: QrGet,
      output: QrCode,
      rest: { method: 'GET', path: '/qr-codes/:code' },
      errors: ['logo_unavailable'],
      example: withCode,
      handler: async (ctx, { code, include_image }) => {
        await settleStore(ctx.db, ctx.store.id);
        const row = await codeRow(ctx, code);
        const out = await toQrCode(ctx, row);
        if (!include_image) return out;
        const png = await renderFor(ctx, row, 300, 'png');
        return { ...out, image: { object: 'image' as const, mime_type: 'image/png', data: Buffer.from(png.body).toString('base64') } };
      },
    }),
    update_qr_code: action({
      kind: 'write',
      description:
        'Change a QR code (fields left out are kept, null clears; landing_page subfields one by one). status "active" reactivates a deactivated, expired or maxed-out code, with a new expires_at or max_scans as needed.',
      input: QrUpdate,
      output: QrCode,
      rest: { method: 'PATCH', path: '/qr-codes/:code' },
      emits: ['qr_code.updated'],
      errors: ['conflict_error'],
      example: withCode,
      handler: updateQrCode,
    }),
    deactivate_qr_code: action({
      kind: 'write',
      description: 'Deactivate a QR code: scans show its expired_message instead of redirecting.',
      input: QrCodeRef,
      output: QrCode,
      rest: { method: 'POST', path: '/qr-codes/:code/deactivate' },
      emits: ['qr_code.updated'],
      example: withCode,
      handler: (ctx, { code }) => deactivateQrCode(ctx, code),
    }),
    archive_qr_code: action({
      kind: 'destructive',
      description: 'Archive a QR code: it leaves the API and its scan URL answers 404. The code stays taken.',
      input: QrCodeRef,
      output: Deleted,
      rest: { method: 'DELETE', path: '/qr-codes/:code' },
      example: withCode,
      handler: (ctx, { code }) => archiveQrCode(ctx, code),
    }),
    get_qr_image: action({
      kind: 'read',
      description: 'The QR image encoding scan_url: PNG (default) or SVG, size 64 to 2048 pixels (default 300).',
      input: QrImageQuery,
      output: Page,
      rest: { method: 'GET', path: '/qr-codes/:code/image', response: 'raw', contentType: 'image/png', asTool: 'image' },
      errors: ['logo_unavailable'],
      example: withCode,
      handler: async (ctx, input) => imageResponse(ctx, await codeRow(ctx, input.code), input.size ?? 300, input.format ?? 'png'),
    }),
    qr_code_analytics: action({
      kind: 'read',
      description: 'Scan analytics of one code over UTC days from..to (at most 366): totals, unique scans, by city, device and day, conversion rate.',
      input: QrAnalyticsQuery,
      output: Analytics,
      rest: { method: 'GET', path: '/qr-codes/:code/analytics' },
      example: withCode,
      handler: codeAnalytics,
    }),
    campaign_analytics: action({
      kind: 'read',
      description: "Scan analytics summed over a campaign's codes (campaign_name), over UTC days from..to.",
      input: CampaignAnalyticsQuery,
      output: Analytics,
      rest: { method: 'GET', path: '/qr-campaigns/:campaign_name/analytics' },
      example: withCampaign,
      handler: campaignAnalytics,
    }),
    scan_qr_code: action({
      kind: 'write',
      description: 'The public scan URL: counts the scan, then redirects, shows the landing page, or the expired page (410).',
      input: ScanInput,
      output: Page,
      rest: { method: 'GET', path: '/s/:code', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
      handler: (ctx, input) => scan(ctx, String(input.code)),
    }),
    follow_qr_cta: action({
      kind: 'write',
      description: "The landing page's call-to-action: marks the scan converted, then redirects to cta_url.",
      input: ScanInput,
      output: Page,
      rest: { method: 'GET', path: '/s/:code/cta', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
      handler: (ctx, input) => followCta(ctx, String(input.code), input.scan),
    }),
  },
});
