/** The order events a store with UCP on hears: each later state of a UCP agent's order is its webhook. */
export const UCP_ORDER_EVENTS = ['order.updated', 'order.paid', 'order.fulfilled', 'order.cancelled'] as const;
