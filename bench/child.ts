/** Shared by the bench server processes: how they tell bench/rest.ts they are ready. */

/** The parent waits for this exact line on stdout to learn the port. */
export function announce(port: number) {
  console.log(`READY ${port}`);
}

/** Children are started by bench/rest.ts, which always passes these. */
export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is not set; run the benchmark with \`bun run bench\`.`);
    process.exit(2);
  }
  return v;
}
