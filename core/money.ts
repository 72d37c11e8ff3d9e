import { errors } from './errors';

/**
 * ISO 4217 currencies a price may be in, with the decimals of each (its minor unit). Funds codes,
 * precious metals and the test codes (XAU, XDR, XTS, XXX, ...) are not money a store charges in.
 * Amounts are kept in integer minor units of their currency (cents, yen, fils), so totals are
 * exact; the API speaks decimal numbers in the major unit.
 */
const ZERO_DECIMALS = ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'];
const THREE_DECIMALS = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const TWO_DECIMALS = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP ' +
  'CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR ' +
  'JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN ' +
  'NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP ' +
  'SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG'
).split(' ');

const DECIMALS = new Map<string, number>([
  ...ZERO_DECIMALS.map((c) => [c, 0] as const),
  ...TWO_DECIMALS.map((c) => [c, 2] as const),
  ...THREE_DECIMALS.map((c) => [c, 3] as const),
]);

export const DEFAULT_CURRENCY = 'USD';

/** The decimals of a currency's minor unit; 2 for a code not (or no longer) listed, as stored before. */
export const decimalsOf = (currency: string) => DECIMALS.get(currency) ?? 2;

/** The currency code, or a 400 naming `param` when it is not an ISO 4217 currency. */
export function checkCurrency(currency: string, param: string): string {
  if (!DECIMALS.has(currency))
    throw errors.validation(`Invalid ${param}: '${currency}' is not an ISO 4217 currency code (e.g. USD, EUR, JPY).`, param);
  return currency;
}

const decimalsText = (d: number) => (d === 0 ? 'no decimals' : d === 1 ? 'at most one decimal place' : `at most ${d} decimal places`);

/** A decimal amount in `currency` as integer minor units; a 400 naming `param` when it has more decimals than the currency. */
export function toMinor(amount: number, currency: string, param: string): number {
  const scale = 10 ** decimalsOf(currency);
  const minor = Math.round(amount * scale);
  if (!Number.isSafeInteger(minor)) throw errors.validation(`Invalid ${param}: too large.`, param);
  // Division is correctly rounded, so an amount with the currency's decimals survives the round trip exactly.
  if (minor / scale !== amount) throw errors.validation(`Invalid ${param}: ${currency} amounts have ${decimalsText(decimalsOf(currency))}.`, param);
  return minor;
}

export const fromMinor = (minor: number | string | bigint, currency: string): number => Number(minor) / 10 ** decimalsOf(currency);
