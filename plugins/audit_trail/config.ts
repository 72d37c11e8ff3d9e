import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';

export const AuditConfig = Type.Object({
  retention_days: Type.Integer({
    minimum: 0,
    default: 365,
    env: 'SVC_AUDIT_TRAIL_RETENTION_DAYS',
    description: 'Days audit events are kept (pruned daily); 0 keeps them all.',
  }),
});
export type AuditCtx = Ctx<Static<typeof AuditConfig>>;
