import { Type } from '@sinclair/typebox';
import { action, Email, errors, fail, Input, iso, Timestamp, Uuid } from '../../core/sdk';
import { actingManager, addMember, changeMember, checkEmail, findOrCreateUser, getMember, listMembers } from './accounts';
import { ROLES, type Role } from './roles';
import { randomToken, sha256 } from './web';

/** Store members and invitations (issue 11, "Users and roles"). */

const RoleName = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { description: 'owner, admin, approver, staff or viewer (README, Roles).' },
);
const Member = Type.Object({
  object: Type.Literal('member'),
  user_id: Uuid(),
  email: Type.String(),
  name: Type.String(),
  role: Type.String(),
  created_at: Timestamp(),
});
/** Membership changes, for the audit trail (member.added, member.updated, member.removed). */
export const memberEvents = {
  'member.added': Member,
  'member.updated': Member,
  'member.removed': Type.Object({ ...Member.properties, deleted: Type.Literal(true) }),
};

const Invitation = Type.Object({
  object: Type.Literal('invitation'),
  id: Uuid(),
  email: Type.String(),
  role: Type.String(),
  url: Type.String({ description: 'The invitation link (shown once; until svc sends email, hand it over yourself).' }),
  expires_at: Timestamp(),
  created_at: Timestamp(),
});
const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export const memberActions = {
  create_user: action({
    kind: 'write',
    description:
      'Operator (admin token): add a user to the store with a role, creating the account if the email is new (then password is required). How the first owner is made.',
    input: Input({
      email: Email('The person to add; an account is made for a new address.'),
      name: Type.Optional(Type.String({ maxLength: 200 })),
      password: Type.Optional(Type.String({ maxLength: 512 })),
      role: RoleName,
    }),
    output: Member,
    errors: ['already_member'],
    rest: { method: 'POST', path: '/users', status: 201, auth: 'admin' },
    example: { email: 'first.owner@example.com', name: 'First Owner', password: 'a long enough passphrase', role: 'owner' },
    emits: ['member.added'],
    handler: async (ctx, input) => {
      const email = checkEmail(input.email);
      const user = await findOrCreateUser(ctx.db, ctx.clock, { email, name: input.name, password: input.password });
      const member = await addMember(ctx.db, ctx.clock, ctx.store.id, user.id, input.role as Role);
      ctx.emit('member.added', member);
      return member;
    },
  }),
  list_members: action({
    kind: 'read',
    description: 'The people of the store with their roles.',
    input: Input({}),
    output: Type.Object({ object: Type.Literal('list'), data: Type.Array(Member), has_more: Type.Boolean(), url: Type.String() }),
    rest: { method: 'GET', path: '/members' },
    handler: async (ctx) => ({
      object: 'list' as const,
      data: await listMembers(ctx.db, ctx.store.id),
      has_more: false,
      url: `${ctx.storePath}/members`,
    }),
  }),
  get_member: action({
    kind: 'read',
    description: 'One member of the store with their role, as the list shows them.',
    input: Input({ user_id: Uuid("The member's user id.") }),
    output: Member,
    rest: { method: 'GET', path: '/members/:user_id' },
    // No POST /members makes a member: the operator's create_user does (a new email each time).
    example: async ({ make }) => ({
      user_id: (await make('users.create_user', { email: `member.${crypto.randomUUID().slice(0, 8)}@example.com` })).user_id,
    }),
    handler: (ctx, input) => getMember(ctx.db, ctx.store.id, input.user_id),
  }),
  update_member: action({
    kind: 'write',
    description: "Change a member's role (owners and admins; only owners make or unmake owners; the last owner stays).",
    input: Input({ user_id: Uuid(), role: RoleName }),
    output: Member,
    errors: ['role_required', 'last_owner'],
    rest: { method: 'PATCH', path: '/members/:user_id', auth: 'user' },
    emits: ['member.updated'],
    handler: async (ctx, input) => {
      const member = await changeMember(ctx, input.user_id, input.role as Role);
      ctx.emit('member.updated', member as object);
      return member as any;
    },
  }),
  remove_member: action({
    kind: 'destructive',
    description: 'Remove a member from the store (owners and admins; only owners remove owners; the last owner stays). Their tokens stop working.',
    input: Input({ user_id: Uuid() }),
    output: Type.Object({ ...Member.properties, deleted: Type.Literal(true) }),
    errors: ['role_required', 'last_owner'],
    rest: { method: 'DELETE', path: '/members/:user_id', auth: 'user' },
    emits: ['member.removed'],
    handler: async (ctx, input) => {
      const member = await changeMember(ctx, input.user_id, null);
      ctx.emit('member.removed', member as object);
      return member as any;
    },
  }),
  create_invitation: action({
    kind: 'write',
    description: 'Invite someone by email to join the store with a role (owners and admins; only owners invite owners). Returns the invitation link.',
    input: Input({ email: Email('The address to invite.'), role: RoleName }),
    output: Invitation,
    errors: ['role_required'],
    rest: { method: 'POST', path: '/invitations', status: 201, auth: 'user' },
    handler: async (ctx, input) => {
      const actor = await actingManager(ctx);
      if (input.role === 'owner' && actor.role !== 'owner') throw fail('role_required', 'Only owners invite owners.', 'role');
      const email = checkEmail(input.email);
      const token = randomToken();
      const now = ctx.clock.now();
      const [row] = await ctx.db.query(
        `INSERT INTO invitations (id, store_id, email, role, token_hash, invited_by, expires_at, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7) RETURNING id, created_at, expires_at`,
        [ctx.store.id, email, input.role, sha256(token), actor.userId, new Date(now.getTime() + INVITE_TTL_MS), now],
      );
      return {
        object: 'invitation' as const,
        id: row.id,
        email,
        role: input.role,
        url: `${ctx.origin}/auth/invitation?token=${token}`,
        expires_at: iso(row.expires_at),
        created_at: iso(row.created_at),
      };
    },
  }),
};

export const roleErrors = {
  already_member: { status: 409, type: 'conflict_error' as const, description: 'The user is already a member of the store.' },
  last_owner: { status: 409, type: 'conflict_error' as const, description: 'The change would leave the store without an owner.' },
  role_required: { status: 403, type: 'permission_error' as const, description: "The caller's role in the store does not allow this." },
  no_oauth_session: {
    status: 403,
    type: 'permission_error' as const,
    description: "The credential is not an OAuth access token (a user's session).",
  },
  not_a_member: {
    status: 403,
    type: 'permission_error' as const,
    description: "The user is not a member of that store (or their role there allows none of the session's scopes).",
  },
};
