import { expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runSvc as svc } from '../../test/kit/serve-process';

test('svc users create makes the first owner, the password read from stdin', async () => {
  const env = { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-users-')) };
  const store = JSON.parse((await svc(['stores', 'create', '--name', 'Shop', '--json'], env)).stdout).store;
  const r = await svc(
    ['users', 'create', '--email', 'boss@example.com', '--store', store.id, '--role', 'owner', '--json'],
    env,
    'a long enough password\n',
  );
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ object: 'member', email: 'boss@example.com', role: 'owner' });
  expect(r.stdout + r.stderr).not.toContain('a long enough password');
  const again = await svc(['users', 'create', '--email', 'boss@example.com', '--store', store.id, '--role', 'owner'], env);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('already a member');
  const bad = await svc(['users', 'create', '--email', 'x@example.com', '--store', store.id, '--role', 'emperor'], env, 'a long enough password\n');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('role');
}, 180_000);
