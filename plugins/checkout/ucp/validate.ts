/**
 * Ajv (draft 2020-12) over the vendored UCP schemas. The server needs only the profile schema (an
 * agent's profile is validated when fetched: `profile_malformed` otherwise), so only that schema
 * and what it references are imported here and embedded in the binary; tests load the whole set
 * (./test/schemas.ts).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import profile from './schemas/profile_schema.json' with { type: 'json' };
import ucp from './schemas/ucp.json' with { type: 'json' };
import service from './schemas/service.json' with { type: 'json' };
import capability from './schemas/capability.json' with { type: 'json' };
import paymentHandler from './schemas/payment_handler.json' with { type: 'json' };
import embeddedConfig from './schemas/transports/embedded_config.json' with { type: 'json' };
import reverseDomainName from './schemas/shopping/types/reverse_domain_name.json' with { type: 'json' };
import availableInstrument from './schemas/shopping/types/available_payment_instrument.json' with { type: 'json' };

export const PROFILE_ID = 'https://ucp.dev/discovery/profile.json';

/** An Ajv holding these schemas (UCP's own keywords, `ucp_request` and the like, are annotations). */
export function ucpAjv(schemas: object[]): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const s of schemas) {
    const id = (s as { $id?: string }).$id;
    // See schemas/README.md: the profile schema's references are relative to the source tree.
    ajv.addSchema(id === 'https://ucp.dev/schemas/discovery/profile.json' ? { ...s, $id: PROFILE_ID } : s);
  }
  return ajv;
}

let profileValidator: ValidateFunction | undefined;

/** The compiled validator of a UCP discovery profile (platform or business), made once. */
export function validateProfile(doc: unknown): { ok: true } | { ok: false; error: string } {
  profileValidator ??= ucpAjv([profile, ucp, service, capability, paymentHandler, embeddedConfig, reverseDomainName, availableInstrument]).getSchema(
    PROFILE_ID,
  )!;
  if (profileValidator(doc)) return { ok: true };
  const e = profileValidator.errors?.[0];
  return { ok: false, error: e ? `${e.instancePath || '/'} ${e.message}` : 'does not match the UCP profile schema' };
}
