/**
 * A value made on first use and kept. For libraries only some requests need (ajv, handlebars,
 * qrcode...): loaded with `require` inside `make`, a CommonJS package is evaluated when first asked
 * for, not at start, in the compiled binary as in development (docs/footprint.md).
 */
export function lazy<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

/** A module's functions as `onFirstCall` hands them out: each answers a promise of its result. */
export type CalledFirst<M> = {
  [K in keyof M as M[K] extends (...args: any[]) => unknown ? K : never]: M[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/**
 * A plugin's handlers, loaded at the first call of one of them (plugins/README.md, "Handlers
 * loaded at their first call"): `const { listReviews } = onFirstCall(() => import('./store'))`.
 * The declaration (schemas, routes, tools) stays at start; the module and what it imports is
 * evaluated only when a request first needs it, so a server that never sees a plugin's requests
 * never holds its code. Only the module's functions can be taken, and each answers a promise.
 */
export function onFirstCall<M extends object>(load: () => Promise<M>): CalledFirst<M> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  const made = new Map<PropertyKey, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy({} as CalledFirst<M>, {
    get(_, name) {
      let f = made.get(name);
      if (!f) {
        f = async (...args: unknown[]) => {
          const m: any = loaded ?? (await (loading ??= load().then((x) => (loaded = x))));
          if (typeof m[name] !== 'function') throw new TypeError(`onFirstCall: the module has no function '${String(name)}'`);
          return m[name](...args);
        };
        made.set(name, f);
      }
      return f;
    },
  });
}
