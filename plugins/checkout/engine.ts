/**
 * The checkout engine's API: what the protocol adapters (UCP, ACP, the REST channel, MCP Apps'
 * cart.quote) call. Every function takes the action's ctx (its transaction and store) and, but
 * for quoteCart, the agent driving the session; money is integer minor units. README.md documents
 * each function; these signatures are kept stable for the adapters built on them.
 */
export { cancelSession, createSession, getSession, quoteCart, updateSession, agentKey, CheckoutConfig, type CheckoutCtx } from './sessions';
export { completeSession } from './complete';
export { agenticSettings, type AgenticSettings } from './settings-store';
export type {
  AddressIn,
  AgentRef,
  Buyer,
  LineInput,
  Message,
  PaymentInput,
  Protocol,
  Session,
  SessionChanges,
  SessionLine,
  SessionStatus,
  ShippingOption,
  Totals,
} from './types';

/** The errors the engine throws (declared in index.ts): adapters map them to their protocol's answers. */
export const ENGINE_ERRORS = [
  'checkout_session_completed',
  'checkout_session_canceled',
  'checkout_session_expired',
  'payment_handler_unsupported',
  'continue_url_missing',
] as const;
