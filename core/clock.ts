/** Every part of svc reads time from a Clock, so tests and SVC_NOW can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that starts at `start` and then runs at real speed (SVC_NOW). */
export function offsetClock(start: Date): Clock {
  const offset = start.getTime() - Date.now();
  return { now: () => new Date(Date.now() + offset) };
}

/** A clock that only moves when told to (tests). */
export function manualClock(start: Date | string) {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    set: (d: Date | string) => void (t = new Date(d).getTime()),
    advance: (ms: number) => void (t += ms),
  };
}

/** A timestamp from the database as the API writes it: ISO 8601 UTC. */
export const iso = (d: unknown) => (d instanceof Date ? d : new Date(d as string)).toISOString();
export const isoOrNull = (d: unknown) => (d == null ? null : iso(d));
