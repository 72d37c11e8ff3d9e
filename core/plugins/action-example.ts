import type { CallerCtx } from './contract';

/**
 * What an example may use: `make('products.create_product', over?)` runs that action with its
 * own example (fields of `over` replacing its fields) in the same store and returns the output;
 * `ctx` is the store's caller, for a resource no action makes (a held tool execution).
 */
export interface ExampleKit {
  make<T = any>(target: string, over?: Record<string, unknown>): Promise<T>;
  ctx: CallerCtx;
}

const NO_EXAMPLE = Symbol('no example');
export interface NoExample {
  readonly [NO_EXAMPLE]: string;
}
export type ActionExample<I = Record<string, unknown>> = Partial<I> | ((kit: ExampleKit) => Promise<Partial<I>>) | NoExample;
/** An action no example can reach, with the reason (printed by the sweeps). */
export const noExample = (reason: string): NoExample => ({ [NO_EXAMPLE]: reason });
/** The reason an action declared `noExample`, if it did. */
export const noExampleReason = (e: unknown): string | undefined =>
  e && typeof e === 'object' && NO_EXAMPLE in e ? (e as NoExample)[NO_EXAMPLE] : undefined;
