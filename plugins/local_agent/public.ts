// What other plugins may read of the nodes (svc_status: workers live and stale).
export { STALE_S, statusOf, workerCounts } from './nodes';
// launch_cluster holds stores to the same trust.
export { requireInstanceTools, trustErrors, trustStore } from './trust';
