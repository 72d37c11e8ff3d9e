// What the sandbox's users need at start, apart from index.ts (importing that loads QuickJS's JS).

export const SANDBOX_DEFAULTS = {
  timeoutMs: 10_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 512 * 1024,
  maxResultBytes: 1024 * 1024,
} as const;

/**
 * Guest code that compiles a body the way runSandboxed runs it (as an async function body), for
 * checks at save time: `${ASYNC_FUNCTION}('input', body)` throws the SyntaxError a run would give.
 */
export const ASYNC_FUNCTION = 'new (Object.getPrototypeOf(async function () {}).constructor)';
