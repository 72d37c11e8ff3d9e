import { EMAIL_ADDRESS, errors } from '../../core/sdk';

/** An email address as stored (lower case), or a validation error naming `param`. */
export function checkAddress(value: string, param: string): string {
  if (!EMAIL_ADDRESS.test(value)) throw errors.validation(`Invalid ${param}: '${value.slice(0, 80)}' is not an email address.`, param);
  return value.toLowerCase();
}
