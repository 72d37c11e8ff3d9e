/**
 * CPU time a process has used, from /proc (Linux). Server CPU per request is steadier than req/s
 * on a shared machine: other work slows a run down but barely changes what each request costs.
 */
import { existsSync, readFileSync } from 'node:fs';

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
