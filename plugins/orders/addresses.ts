import { Type } from '@sinclair/typebox';
import { errors, Input } from '../../core/sdk';

/**
 * Shipping and billing addresses of an order. They are copied onto the order as given and never
 * joined to the customer: the order records where it went and who paid, so a customer's later
 * change of address (or erasure) leaves the books as they were.
 */

/** ISO 3166-1 alpha-2, the officially assigned codes (249). A pattern alone would let `XX` through. */
const COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD ' +
    'CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF ' +
    'GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN ' +
    'KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA ' +
    'NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI ' +
    'SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI ' +
    'VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, description });

export const AddressInput = Input({
  name: Type.Optional(Text(200, 'Person or company the address is for.')),
  line1: Text(200, 'Street and number.'),
  line2: Type.Optional(Text(200, 'Apartment, suite, floor.')),
  city: Text(100),
  region: Type.Optional(Text(100, 'State, province or county.')),
  postal_code: Type.Optional(
    Type.String({
      maxLength: 16,
      pattern: '^[A-Za-z0-9](?:[A-Za-z0-9 -]*[A-Za-z0-9])?$',
      errorMessage: 'must be a postal code (letters, digits, spaces and hyphens)',
    }),
  ),
  country: Type.String({
    pattern: '^[A-Z]{2}$',
    errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US',
    description: 'ISO 3166-1 alpha-2, e.g. US, DE, JP.',
  }),
  phone: Type.Optional(
    Type.String({
      maxLength: 40,
      pattern: '^\\+[1-9](?:[ .()-]{0,2}[0-9]){6,14}$',
      errorMessage: 'must be a phone number in international form, e.g. +1 415 555 0100',
      description: 'In international form, e.g. +1 415 555 0100.',
    }),
  ),
});

export const Address = Type.Object({
  name: Type.Optional(Type.String()),
  line1: Type.String(),
  line2: Type.Optional(Type.String()),
  city: Type.String(),
  region: Type.Optional(Type.String()),
  postal_code: Type.Optional(Type.String()),
  country: Type.String(),
  phone: Type.Optional(Type.String()),
});

type AddressValue = { country: string } & Record<string, string>;

/** The address as it will be stored, or a 400 naming `<param>.country` for a code no country has. */
export function checkAddress<T extends AddressValue | null | undefined>(address: T, param: string): T {
  if (address && !COUNTRIES.has(address.country))
    throw errors.validation(
      `Invalid ${param}.country: '${address.country}' is not an ISO 3166-1 alpha-2 country code (e.g. US, DE, JP).`,
      `${param}.country`,
    );
  return address;
}
