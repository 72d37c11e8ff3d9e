import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';

/** The email plugin's settings: the relay, the DNS zone it serves, inbound mail, the default sender. */
export const EmailConfig = Type.Object({
  smtp_url: Type.Optional(
    Type.String({ env: 'SMTP_URL', description: 'The relay mail leaves through: smtp://user:pass@host:587 (STARTTLS) or smtps://host:465.' }),
  ),
  dns_zone: Type.Optional(
    Type.String({
      env: 'SVC_EMAIL_DNS_ZONE',
      description: "The DNS zone this instance serves (delegated to SVC_DNS_LISTEN): domains' DKIM and DMARC CNAMEs point into it.",
    }),
  ),
  spf: Type.String({
    env: 'SVC_EMAIL_SPF',
    default: '',
    description: 'SPF mechanisms of the relay, published at spf.<zone> (e.g. ip4:203.0.113.5).',
  }),
  dns_listen: Type.Optional(Type.String({ env: 'SVC_DNS_LISTEN', description: 'host:port the authoritative DNS listener binds (e.g. 0.0.0.0:53).' })),
  dns_resolver: Type.Optional(
    Type.String({ env: 'SVC_DNS_RESOLVER', description: "host:port of the resolver domain verification asks (default: the system's)." }),
  ),
  inbound_domain: Type.Optional(
    Type.String({
      env: 'SVC_EMAIL_INBOUND_DOMAIN',
      description:
        'The domain whose mail reaches this instance (MX to SVC_SMTP_LISTEN, or a relay posting to /v1/inbound/email): return paths and thread reply addresses.',
    }),
  ),
  from: Type.Optional(Type.String({ env: 'SVC_EMAIL_FROM', description: 'The default sender, allowed for every store.' })),
});

export type EmailSettings = Static<typeof EmailConfig>;
/** A ctx whose settings are the email plugin's. */
export type EmailCtx = Ctx<EmailSettings>;

/**
 * Email's settings wherever its code runs: inside another plugin's call (the shared inbox sends and
 * receives through public.ts) ctx.config is that plugin's, never email's.
 */
export const emailSettings = (registry: Pick<Ctx['registry'], 'configOf'>): EmailSettings => registry.configOf('email') as EmailSettings;

/** The setting a queued message waits for, named in the send response and at start-up. */
export const SMTP_MISSING = 'SMTP_URL is not set: the message stays queued until a relay is configured (SMTP_URL=smtp://host:587).';
