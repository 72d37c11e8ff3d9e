/**
 * The store plans (SPEC 8), lowest first: the one list every plan check, schema and rate limit
 * reads. A plan "at least" another is one at the same index or later.
 */
export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const planAtLeast = (have: Plan, needed: Plan) => PLANS.indexOf(have) >= PLANS.indexOf(needed);

/**
 * What each plan allows, as `store.get_plan` shows it: integers, `null` for unlimited. The rate
 * limiter (core/http/rate-limit.ts) and the email plugin's hourly cap read their defaults here;
 * later issues add their own limits to this one table.
 */
export interface PlanLimits {
  requests_per_minute: number | null;
  burst_per_second: number | null;
  emails_per_hour: number | null;
  workflow_runs_per_hour: number | null;
  /** One media upload's largest size, and all of a store's media together (SVC_MEDIA_LIMITS overrides both). */
  media_upload_bytes: number | null;
  media_storage_bytes: number | null;
}
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    requests_per_minute: 120,
    burst_per_second: 20,
    emails_per_hour: 100,
    workflow_runs_per_hour: 100,
    media_upload_bytes: 10 * MiB,
    media_storage_bytes: GiB,
  },
  starter: {
    requests_per_minute: 600,
    burst_per_second: 50,
    emails_per_hour: 1_000,
    workflow_runs_per_hour: 1_000,
    media_upload_bytes: 50 * MiB,
    media_storage_bytes: 10 * GiB,
  },
  pro: {
    requests_per_minute: 3_000,
    burst_per_second: 150,
    emails_per_hour: 10_000,
    workflow_runs_per_hour: 10_000,
    media_upload_bytes: 100 * MiB,
    media_storage_bytes: 100 * GiB,
  },
  enterprise: {
    requests_per_minute: 12_000,
    burst_per_second: 500,
    emails_per_hour: 100_000,
    workflow_runs_per_hour: 100_000,
    media_upload_bytes: 500 * MiB,
    media_storage_bytes: 1_000 * GiB,
  },
};
