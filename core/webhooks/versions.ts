import { errors, SvcError } from '../errors';
import { downgradeBody, LATEST, resolveVersion, VERSIONS } from '../http/versioning';

/**
 * API versions of webhook endpoints (SPEC 9). An endpoint records the version it was created
 * under, and its payloads keep that version's shape. Events are stored once, in the latest shape;
 * each attempt renders the body for its endpoint's version, so two endpoints on different versions
 * get their own shapes from the same event, and the signatures cover exactly the bytes sent.
 */

export const API_VERSIONS: readonly string[] = VERSIONS.map((v) => v.id);
export const LATEST_API_VERSION = LATEST.id;

/** A known version an endpoint may be set to now: a retired one is a 400 naming `param`. */
export function checkEndpointVersion(id: string, now: Date, param = 'api_version'): string {
  try {
    return resolveVersion(id, now).version.id;
  } catch (err) {
    if (err instanceof SvcError) throw errors.validation(`Invalid ${param}: ${err.message}`, param);
    throw err;
  }
}

/**
 * The body of an event as delivered to an endpoint on `version`: the stored (latest-shape) body
 * itself for the latest version, else with `data` walked back to that version. JSON.stringify is
 * deterministic, so every attempt of a delivery sends the same bytes while the version stays.
 * A version no longer known to this build (never expected: versions are not deleted) sends the stored body.
 */
export function bodyForVersion(body: string, version: string | null | undefined): string {
  const target = VERSIONS.find((v) => v.id === version);
  if (!target || target === LATEST) return body;
  const event = JSON.parse(body);
  return JSON.stringify({ ...event, data: downgradeBody(event.data, target) });
}
