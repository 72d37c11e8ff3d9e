import { fail, forbidden, type Ctx } from '../../core/sdk';

export const trustErrors = {
  instance_tools_not_allowed: forbidden(
    'This store is not trusted with the instance\'s tools: the operator turns them on with PATCH /v1/stores/{id} {"instance_tools": true}.',
  ),
};

/**
 * local_agent and launch_cluster act on the whole instance (its processes, its database, its
 * clusters), so a store uses them only when the operator trusts it, whatever its key's scopes.
 */
export async function requireInstanceTools(ctx: Ctx): Promise<void> {
  const [s] = await ctx.db.query<{ instance_tools: boolean }>('SELECT instance_tools FROM stores WHERE id = $1', [ctx.store.id]);
  if (!s?.instance_tools)
    throw fail(
      'instance_tools_not_allowed',
      'This store may not use the instance\'s tools (local_agent, launch_cluster): the operator allows it with PATCH /v1/stores/{id} {"instance_tools": true}.',
    );
}

/** For examples and tests: trust the store as the operator would. */
export const trustStore = (db: Ctx['db'], storeId: string) => db.query('UPDATE stores SET instance_tools = true WHERE id = $1', [storeId]);
