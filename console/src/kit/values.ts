/**
 * The values of an API enum, for a Select, in the order written:
 * `valuesOf<Query<'/products'>['status']>({ active: true, draft: true, archived: true })`. The object
 * names each value of the type once, no more and no fewer, so a value added, renamed or dropped in
 * the plugin's schema fails the console's type-check instead of offering a stale list.
 */
export const valuesOf = <T extends string>(all: Record<T, true>): T[] => Object.keys(all) as T[];
