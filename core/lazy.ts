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
