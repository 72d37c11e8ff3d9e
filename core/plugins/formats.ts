/**
 * The string formats input schemas use (JSON Schema `format`), each checked by one function: the
 * validator (TypeBox's FormatRegistry, and ajv for conditional schemas) and any handler that still
 * normalises a value use the same check, so what /openapi.json says and what the server refuses
 * cannot drift (issue 44). Registered when this module loads, before any schema is compiled.
 */
import { FormatRegistry } from '@sinclair/typebox';

// Deliberately plain: a local part without spaces or angle brackets, a dotted host of DNS labels.
export const EMAIL_ADDRESS = /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
// The last label starts with a letter: a numeric one would be read as an IPv4 address by URL.
const HOST = `(?:(?:${LABEL}\\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?|(?:${OCTET}\\.){3}${OCTET})`;
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?';
/** An origin as a browser sends it: http(s), a lower-case host, an optional port; no path. */
export const ORIGIN_PATTERN = `^https?://${HOST}${PORT}/?$`;
export const HOSTNAME = new RegExp(`^(?=.{1,253}$)${HOST}$`, 'i');

const isDateTime = (v: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(v) && !Number.isNaN(Date.parse(v));

/** An absolute http(s) URL without user:password@ (what a redirect, a link or a fetch may use). */
export function isWebUrl(v: string): boolean {
  if (!/^https?:\/\//i.test(v)) return false;
  try {
    const url = new URL(v);
    return !url.username && !url.password && !!url.hostname;
  } catch {
    return false;
  }
}

export const FORMATS: Record<string, (v: string) => boolean> = {
  email: (v) => EMAIL_ADDRESS.test(v),
  uri: isWebUrl,
  hostname: (v) => HOSTNAME.test(v),
  'date-time': isDateTime,
};

for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
