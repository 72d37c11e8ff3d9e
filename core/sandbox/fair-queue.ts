/**
 * Calls waiting for a sandbox worker, by tenant (the store whose tool runs), served round-robin:
 * a store that floods the pool, or runs away in it, makes the others wait for one of its calls at
 * a time, never behind all of them. Calls handed back (never run) go first.
 */
export class FairQueue<T> {
  private lanes = new Map<string, T[]>(); // insertion order is the rotation
  private first: T[] = [];
  length = 0;

  push(tenant: string, item: T) {
    const lane = this.lanes.get(tenant);
    if (lane) lane.push(item);
    else this.lanes.set(tenant, [item]);
    this.length++;
  }

  /** Back to the head of the line: calls taken back from a worker that never ran them. */
  unshift(...items: T[]) {
    this.first.unshift(...items);
    this.length += items.length;
  }

  shift(): T | undefined {
    let item = this.first.shift();
    if (item === undefined) {
      const next = this.lanes.entries().next();
      if (next.done) return undefined;
      const [tenant, lane] = next.value;
      item = lane.shift();
      // This tenant goes to the back of the rotation (or leaves it, with nothing left waiting).
      this.lanes.delete(tenant);
      if (lane.length) this.lanes.set(tenant, lane);
    }
    this.length--;
    return item;
  }

  /** Empties the queue, returning everything that waited. */
  drain(): T[] {
    const all = [...this.first, ...[...this.lanes.values()].flat()];
    this.first = [];
    this.lanes.clear();
    this.length = 0;
    return all;
  }
}
