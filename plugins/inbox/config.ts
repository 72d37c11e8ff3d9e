import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';

/** The inbox's settings: how inbound mail reaches it (a signed POST, or its own SMTP listener). */
export const InboxConfig = Type.Object({
  inbound_secret: Type.Optional(
    Type.String({ env: 'SVC_INBOUND_SECRET', description: 'Key of the HMAC a relay signs POST /v1/inbound/email with.' }),
  ),
  smtp_listen: Type.Optional(
    Type.String({ env: 'SVC_SMTP_LISTEN', description: 'host:port of the built-in SMTP listener (the MX of SVC_EMAIL_INBOUND_DOMAIN).' }),
  ),
  smtp_tls_cert: Type.Optional(
    Type.String({
      env: 'SVC_SMTP_TLS_CERT',
      description: "Path of the SMTP listener's certificate chain (PEM): with SVC_SMTP_TLS_KEY, it offers STARTTLS.",
    }),
  ),
  smtp_tls_key: Type.Optional(Type.String({ env: 'SVC_SMTP_TLS_KEY', description: 'Path of the private key (PEM) of SVC_SMTP_TLS_CERT.' })),
});

/** A ctx whose settings are the inbox's. */
export type InboxCtx = Ctx<Static<typeof InboxConfig>>;
