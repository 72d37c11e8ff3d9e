import { expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { manualClock } from '../clock';
import type { Db } from '../db/types';
import { SvcError } from '../errors';
import { action, definePlugin, type ActionDef, type Principal } from '../plugins/contract';
import { callerCtx, invoke } from '../plugins/invoke';
import { createRegistry } from '../plugins/registry';

/** ctx.origin outside any request (a job, the CLI): SVC_PUBLIC_URL, or an error naming it. */
const links = definePlugin({
  name: 'links',
  category: 'platform',
  scopes: { read: ['links:read'], write: ['links:write'] },
  actions: {
    link: action({
      kind: 'read',
      description: 'Answers a link to this server, and whether a copy of ctx works.',
      input: Type.Object({}),
      output: Type.Object({ url: Type.String(), copied: Type.Boolean() }),
      handler: async (ctx) => {
        const copy = { ...ctx, db: ctx.db }; // plugins copy ctx for a transaction: that must not throw
        return { url: `${ctx.origin}/s/abc`, copied: copy.store === ctx.store };
      },
    }),
  },
});

const principal: Principal = { kind: 'admin', scopes: ['links:read'], livemode: false };
const store = { id: 'c1a1e7a0-0000-4000-8000-000000000000', name: 'S', plan: 'free' as const };
const run = (env: Record<string, string>, origin?: string) => {
  const registry = createRegistry([links], { env });
  const deps = { db: {} as Db, clock: manualClock('2026-04-01T00:00:00Z'), registry };
  return invoke(links, links.actions.link as ActionDef, callerCtx(deps, principal, store, { origin }), {});
};

test('outside a request ctx.origin is SVC_PUBLIC_URL; without it, provider_not_configured naming the setting', async () => {
  expect(await run({ SVC_PUBLIC_URL: 'https://svc.example.com/' })).toEqual({ url: 'https://svc.example.com/s/abc', copied: true });
  const err = (await run({}).catch((e) => e)) as SvcError;
  expect(err).toBeInstanceOf(SvcError);
  expect(err.code).toBe('provider_not_configured');
  expect(err.message).toContain('SVC_PUBLIC_URL');
  // An MCP connection's or an agent chat's origin stands in for it.
  expect(await run({}, 'http://shop.test')).toEqual({ url: 'http://shop.test/s/abc', copied: true });
});
