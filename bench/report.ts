/** Turns the measurements into the markdown the README holds. */
import type { WrkResult } from './wrk';

export interface Row {
  label: string;
  result: WrkResult;
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => x.toFixed(2);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function resultsTable(rows: Row[]): string {
  const lines = [
    '| Measurement | req/s | p50 (ms) | p99 (ms) | server CPU (µs/req) | database CPU (µs/req) | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const us = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(1));
  for (const { label, result: r } of rows)
    lines.push(`| ${label} | ${n0(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${us(r.serverCpuUs)} | ${us(r.dbCpuUs)} | ${r.errors} |`);
  return lines.join('\n');
}

export interface Check {
  label: string;
  value: string;
  target: string;
  /** undefined: reported only, no target to meet. */
  ok?: boolean;
  /** A ratio check's value and target, for the regression guard. */
  ratio?: number;
  min?: number;
}

/** The ratio checks under half their target: what CI's guard fails on (a slide still shows as FAIL). */
export const collapses = (checks: Check[]) => checks.filter((c) => c.ratio !== undefined && c.min !== undefined && c.ratio < c.min / 2);

export const ratio = (label: string, a: number, b: number, min?: number, note?: string): Check => ({
  label,
  ratio: a / b,
  min,
  value: pct(a / b),
  target: min === undefined ? (note ?? 'report') : `>= ${pct(min)}`,
  ok: min === undefined ? undefined : a / b >= min,
});

export const p99Under = (label: string, r: WrkResult, maxMs: number): Check => ({
  label,
  value: `${ms(r.p99)} ms`,
  target: `< ${maxMs} ms`,
  ok: r.p99 < maxMs,
});

export function checksTable(checks: Check[]): string {
  const lines = ['| Check | Value | Target | Result |', '|---|---:|---|---|'];
  for (const c of checks) lines.push(`| ${c.label} | ${c.value} | ${c.target} | ${c.ok === undefined ? '-' : c.ok ? 'pass' : 'FAIL'} |`);
  return lines.join('\n');
}

export function decayTable(runs: WrkResult[]): string {
  const lines = ['| svc GET run | req/s | p99 (ms) | server CPU (µs/req) |', '|---|---:|---:|---:|'];
  runs.forEach((r, i) => lines.push(`| ${i + 1} | ${n0(r.rps)} | ${ms(r.p99)} | ${r.serverCpuUs?.toFixed(1) ?? 'n/a'} |`));
  return lines.join('\n');
}
