import { Type } from '@sinclair/typebox';

export const WorkflowsConfig = Type.Object({
  /** SVC_WORKFLOWS_MAX_CHAIN_DEPTH: events a run causes carry its depth plus one; an event deeper than this starts no run. */
  max_chain_depth: Type.Integer({ minimum: 0, maximum: 20, default: 3 }),
});
