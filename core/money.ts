import { errors } from './errors';

/** Money is kept in integer minor units (cents) so totals are exact; the API speaks decimal numbers. */
export function toMinor(amount: number, param: string): number {
  const minor = Math.round(amount * 100);
  if (Math.abs(minor - amount * 100) > 1e-6) throw errors.validation(`Invalid ${param}: at most two decimal places.`, param);
  if (!Number.isSafeInteger(minor)) throw errors.validation(`Invalid ${param}: too large.`, param);
  return minor;
}

export const fromMinor = (minor: number | string | bigint): number => Number(minor) / 100;
