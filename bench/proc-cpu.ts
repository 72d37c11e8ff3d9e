/**
 * CPU time a process has used, from /proc (Linux). Server CPU per request is steadier than req/s
 * on a shared machine: other work slows a run down but barely changes what each request costs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

/** utime + stime of `pid` in milliseconds, or undefined where /proc is unavailable. */
export function cpuMs(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return undefined;
  // The command name field may contain spaces; the numeric fields start after its closing ')'.
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time of each PostgreSQL process on this machine (backends, WAL writer, checkpointer...), by
 * pid, in milliseconds: what a run cost the database, which shares the cores with the server.
 * With `database`, only the backends connected to it: other engineers' tests on the same server
 * stay out of the figure (and so do the shared WAL writer and checkpointer).
 */
export function postgresCpuMs(database?: string): Map<number, number> | undefined {
  if (!existsSync('/proc')) return undefined;
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      // A backend's title: "postgres: 15/main: <user> <database> <client> <state>".
      if (database && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      const ms = cpuMs(Number(pid));
      if (ms !== undefined) byPid.set(Number(pid), ms);
    } catch {
      // The process ended while we looked.
    }
  }
  return byPid;
}

/** CPU the database spent between two samples: processes that ended meanwhile count up to their last sample. */
export function postgresCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
