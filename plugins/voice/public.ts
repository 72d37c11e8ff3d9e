/**
 * Twilio for the phone plugin (which requires voice): the account's settings, the signature of
 * Twilio's callbacks, and the REST call. One client, in one place.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { errors, fail, type Ctx } from '../../core/sdk';
import { storeSettings } from '../store/public';
import type { TwilioConfig } from './config';

export type Twilio = Required<Static<typeof TwilioConfig>>;

/** The account's settings, or 400 provider_not_configured naming the first one missing; SVC_PUBLIC_URL too (callbacks are signed over it). */
export function twilioOf(ctx: Ctx, config: Static<typeof TwilioConfig>): Twilio & { publicUrl: string } {
  for (const [k, env] of [
    ['account_sid', 'TWILIO_ACCOUNT_SID'],
    ['auth_token', 'TWILIO_AUTH_TOKEN'],
    ['phone_number', 'TWILIO_PHONE_NUMBER'],
  ] as const)
    if (!config[k]) throw errors.notConfigured(env, 'Twilio is not configured');
  const publicUrl = ctx.registry.site.publicUrl;
  if (!publicUrl) throw errors.notConfigured('SVC_PUBLIC_URL', 'Twilio signs its callbacks over the public URL');
  return { ...(config as Twilio), base_url: config.base_url.replace(/\/$/, ''), publicUrl };
}

/** Twilio's X-Twilio-Signature: base64 HMAC-SHA1, keyed by the auth token, of the URL and the POST parameters sorted by name. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return createHmac('sha1', authToken).update(data).digest('base64');
}

/** A callback's signature checked; a bad or missing one is 403 and nothing changes. */
export function checkSignature(authToken: string, url: string, params: Record<string, string>, given: string | null) {
  const want = Buffer.from(twilioSignature(authToken, url, params));
  const got = Buffer.from(given ?? '');
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw fail('invalid_signature', 'X-Twilio-Signature does not match this request.');
}

/** A form-encoded POST to the account's REST API (2010-04-01), answering its JSON; a refusal is 502 naming Twilio's message. */
export async function twilioPost(t: Twilio, path: string, form: Record<string, string>): Promise<any> {
  const r = await fetch(`${t.base_url}/2010-04-01/Accounts/${t.account_sid}/${path}`, {
    method: 'POST',
    headers: { Authorization: basic(t), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw fail('provider_rejected', `Twilio refused the request (${r.status}): ${body.message ?? 'no message'}.`);
  return body;
}

export const basic = (t: Twilio) => `Basic ${Buffer.from(`${t.account_sid}:${t.auth_token}`).toString('base64')}`;

/** The account's settings for another plugin (phone): voice's own configuration, read through its file. */
export const accountTwilio = (ctx: Ctx) => twilioOf(ctx, ctx.registry.configOf('voice') as Static<typeof TwilioConfig>);

/** The number the store's calls and SMS come from: its own (store settings' phone_number) when set, else the instance's. */
export async function storeNumber(ctx: Ctx, t: Twilio): Promise<string> {
  return (await storeSettings(ctx.db, ctx.store.id)).phone_number ?? t.phone_number;
}
