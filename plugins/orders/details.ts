import { checkMetadata, mergeMetadata, type Row } from '../../core/sdk';
import { checkAddress } from './addresses';

/**
 * The order's own details: shipping and billing addresses, the customer's and the merchant's
 * notes, metadata. On create they are taken as given; on update a field left out keeps its
 * value, null clears it, and metadata merges (Stripe: "" or null removes a key).
 */
interface DetailsInput {
  shipping_address?: Record<string, any> | null;
  billing_address?: Record<string, any> | null;
  customer_note?: string | null;
  merchant_note?: string | null;
  metadata?: Record<string, string | null>;
}

/** The columns to write (undefined: leave as is), checked. `currentMetadata` is given on update. */
export function checkDetails(input: DetailsInput, currentMetadata?: Record<string, string>) {
  let metadata: Record<string, string> | undefined;
  if (currentMetadata === undefined) {
    metadata = (input.metadata ?? {}) as Record<string, string>;
    checkMetadata(metadata);
  } else if (input.metadata !== undefined) metadata = mergeMetadata(currentMetadata, input.metadata);
  return {
    shipping_address: checkAddress(input.shipping_address as any, 'shipping_address'),
    billing_address: checkAddress(input.billing_address as any, 'billing_address'),
    customer_note: input.customer_note,
    merchant_note: input.merchant_note,
    metadata,
  };
}

/** The order fields of the details columns. */
export const detailsOf = (r: Row) => ({
  shipping_address: r.shipping_address ?? null,
  billing_address: r.billing_address ?? null,
  customer_note: r.customer_note ?? null,
  merchant_note: r.merchant_note ?? null,
  metadata: r.metadata ?? {},
});
