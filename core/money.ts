import { errors } from './errors';

/** Money is kept in integer minor units (cents) so totals are exact; the API speaks decimal numbers. */
export function toMinor(amount: number, param: string): number {
  const minor = Math.round(amount * 100);
  if (!Number.isSafeInteger(minor)) throw errors.validation(`Invalid ${param}: too large.`, param);
  // Division is correctly rounded, so a two-decimal amount survives the round trip exactly.
  if (minor / 100 !== amount) throw errors.validation(`Invalid ${param}: at most two decimal places.`, param);
  return minor;
}

export const fromMinor = (minor: number | string | bigint): number => Number(minor) / 100;
