// @ts-expect-error qrcode ships no types for its core; only the matrix builder is bundled (no canvas, no PNG code).
import QRCodeCore from 'qrcode/lib/core/qrcode';
import type { Body } from '../../../console/src/kit';

/**
 * Live previews for the QR code editor, drawn in the page from the form's values before anything
 * is saved: the code's matrix as SVG in the brand color (the saved image comes from the server),
 * and the landing page as escaped text with the page's colors set through the DOM (the console CSP
 * forbids inline style attributes and framing, and an iframe of /s/{code} would count a scan).
 */

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const color = (value: string, fallback: string) => (HEX.test(value) ? value : fallback);

export function QrMatrixPreview({ text, brandColor, withLogo }: { text: string; brandColor: string; withLogo: boolean }) {
  const qr = QRCodeCore.create(text, { errorCorrectionLevel: withLogo ? 'H' : 'M' });
  const n: number = qr.modules.size;
  const quiet = 4;
  const side = n + quiet * 2;
  let d = '';
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (qr.modules.get(y, x)) d += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  const logo = Math.round(side * 0.24);
  const at = (side - logo) / 2;
  return (
    <svg class="qr-image" viewBox={`0 0 ${side} ${side}`} role="img" aria-label={`Preview of the QR code for ${text}`} shape-rendering="crispEdges">
      <rect width={side} height={side} fill="#ffffff" />
      <path d={d} fill={color(brandColor, '#000000')} />
      {withLogo && <rect x={at} y={at} width={logo} height={logo} fill="#ffffff" stroke="#4d5661" stroke-width="0.3" stroke-dasharray="1 1" />}
    </svg>
  );
}

/** A landing page's fields as the form holds them: the API's, each as text. */
export type Landing = Record<keyof NonNullable<Body<'POST', '/qr-codes'>['landing_page']>, string>;

export function LandingPreview({ page }: { page: Landing }) {
  const bg = color(page.background_color, '#ffffff');
  const ink = color(page.text_color, '#1b1f24');
  const accent = color(page.accent_color, '#0b57d0');
  return (
    <div class="landing-preview" style={{ background: bg, color: ink }} aria-label="Landing page preview" role="region">
      {page.image_url && <p class="landing-image">Image: {page.image_url}</p>}
      <p class="landing-title">{page.title || 'Title'}</p>
      {page.description && <p>{page.description}</p>}
      {page.cta_text && page.cta_url && (
        <span class="landing-cta" style={{ background: accent, color: '#ffffff' }}>
          {page.cta_text}
        </span>
      )}
    </div>
  );
}
