/**
 * The store plans (SPEC 8), lowest first: the one list every plan check, schema and rate limit
 * reads. A plan "at least" another is one at the same index or later.
 */
export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const planAtLeast = (have: Plan, needed: Plan) => PLANS.indexOf(have) >= PLANS.indexOf(needed);
