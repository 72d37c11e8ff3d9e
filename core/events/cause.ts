import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What caused the events written inside `fn` (a workflow run's `{workflow_run, chain_depth}`):
 * stored with each event (events.cause, never in the delivered body) and handed to reactions as
 * `event.cause`, so a plugin can tell the events it caused itself from the others (loop protection).
 * It follows the async calls of `fn`: the tool call, invoke, the event write.
 */
const current = new AsyncLocalStorage<object>();

export const withEventCause = <T>(cause: object, fn: () => Promise<T>): Promise<T> => current.run(cause, fn);
export const eventCause = (): object | undefined => current.getStore();
