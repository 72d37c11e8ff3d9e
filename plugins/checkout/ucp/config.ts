import { Type } from '@sinclair/typebox';

/** The UCP adapter's settings, part of the checkout plugin's config (spread into CheckoutConfig). */
export const UcpConfigFields = {
  ucp_allow_insecure_profiles: Type.Boolean({
    env: 'SVC_UCP_ALLOW_INSECURE_PROFILES',
    default: false,
    description:
      'Development only: accept http:// agent profiles and webhook URLs (UCP requires https). A loopback address still needs SVC_EGRESS_ALLOW.',
  }),
};

/** Whether this process lets http:// profiles through (read from the plugin's config). */
export const allowInsecure = (config: unknown) => Boolean((config as { ucp_allow_insecure_profiles?: boolean })?.ucp_allow_insecure_profiles);

/** Days a rotated-out signing key stays published (keys.ts), so agents can still verify what it signed. */
export const ROTATION_GRACE_DAYS = 7;
