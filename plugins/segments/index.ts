import { action, definePlugin, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_segments.sql' with { type: 'text' };
import { MemberList, MembersQuery, Segment, SegmentCreate, SegmentId, SegmentList, SegmentQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createSegment, getMembers, getSegment, listSegments } = onFirstCall(() => import('./store'));

const segments = definePlugin({
  name: 'segments',
  category: 'marketing',
  description: 'Customer segments by rules (profile fields, tags, metadata and order figures); members are evaluated when read.',
  resource: 'segment',
  catalog: true,
  // SPEC 5.4: customers, customers:read, crm.
  scopes: { read: ['customers', 'customers:read', 'crm', 'crm:read'], write: ['customers', 'customers:write', 'crm', 'crm:write'] },
  tables: ['segments'],
  requires: ['store', 'customers', 'orders'],
  events: { 'segment.created': Segment },
  migrations: [{ id: 'segments/001_segments', sql: migration001 }],
  actions: {
    list_segments: action({
      kind: 'read',
      description: 'List segments, newest first.',
      input: SegmentQuery,
      output: SegmentList,
      rest: { method: 'GET', path: '/segments' },
      handler: listSegments,
    }),
    get_segment: action({
      kind: 'read',
      description: 'Fetch one segment and its rules.',
      input: SegmentId,
      output: Segment,
      rest: { method: 'GET', path: '/segments/:id' },
      handler: (ctx, { id }) => getSegment(ctx, id),
    }),
    create_segment: action({
      kind: 'write',
      description:
        'Create a segment: rules {match: all|any, conditions: [{field, operator, value, within_days?}]}. Fields: email, first_name, last_name, tags, accepts_marketing, created_at, metadata.<key>, and over paid/fulfilled/completed orders (within_days: only the last N days): total_spent (net, store currency), orders_count, average_order_value, last_order_at. Operators: eq, neq, gt, gte, lt, lte, contains, in, exists.',
      input: SegmentCreate,
      output: Segment,
      rest: { method: 'POST', path: '/segments', status: 201 },
      emits: ['segment.created'],
      example: {
        name: 'Big spenders',
        rules: { match: 'all', conditions: [{ field: 'total_spent', operator: 'gte', value: 100, within_days: 90 }] },
      },
      handler: createSegment,
    }),
    get_members: action({
      kind: 'read',
      description: "The segment's members now (customers matching its rules), newest first, in cursor pages.",
      input: MembersQuery,
      output: MemberList,
      rest: { method: 'GET', path: '/segments/:id/members' },
      handler: getMembers,
    }),
  },
});
export default segments;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'segments', typeof segments> {}
}
