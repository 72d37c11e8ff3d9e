/**
 * The skip mark a pool shares with each worker (pool.ts, worker.ts): the calls it took back from
 * the worker's queue, which the worker then drops unrun. A range `from < seq <= to`, not a
 * watermark `seq <= to`: the call at `from`, which the pool believes is running, may not have
 * started yet when the worker is still busy with a call taken back earlier, and must still run.
 * Packed into one Int32 (16 bits each: a worker takes at most MAX_CALLS_PER_WORKER calls, so its
 * sequence numbers stay far below 65,536), so the pool sets it in one atomic store.
 */
export const skipMark = (from: number, to: number) => (from << 16) | to;

export const isSkipped = (mark: number, seq: number) => seq > mark >>> 16 && seq <= (mark & 0xffff);
