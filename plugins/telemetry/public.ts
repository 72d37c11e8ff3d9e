/**
 * What other plugins may use of telemetry: the outcome of every provider call this process
 * traces (svc_status counts failures in a row). Nothing is heard while tracing is off.
 */
export { onProviderOutcome, type ProviderOutcomeListener } from './outcomes';
