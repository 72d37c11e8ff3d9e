/** Hears each provider call as it ends: the provider's name, whether it answered well, and why not. */
export type ProviderOutcomeListener = (provider: string, ok: boolean, error?: string) => void;

const listeners = new Set<ProviderOutcomeListener>();

/** Subscribes; answers the function that unsubscribes. */
export function onProviderOutcome(listener: ProviderOutcomeListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Called by the tracer as a provider span ends; a listener's throw never reaches the call. */
export function providerOutcome(provider: string, ok: boolean, error?: string) {
  for (const l of listeners) {
    try {
      l(provider, ok, error);
    } catch {
      // A listener's failure is its own; the provider call has already ended.
    }
  }
}
