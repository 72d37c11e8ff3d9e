#!/usr/bin/env node
// `npx svc ...`: runs the CLI on the Bun that npm installed beside it (bun is a dependency).
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const bun = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.exe' : 'bun');
const child = spawn(bun, [join(root, 'core', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
