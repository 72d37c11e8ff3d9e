// Files imported `with { type: 'text' }` (SQL) or `{ type: 'file' }` (embedded assets: a path string).
declare module '*.sql' {
  const text: string;
  export default text;
}
declare module '*.wasm' {
  const path: string;
  export default path;
}
declare module '*.data' {
  const path: string;
  export default path;
}
declare module '*.css' {
  const path: string;
  export default path;
}
declare module '*.png' {
  const path: string;
  export default path;
}
declare module '*.gz' {
  const path: string;
  export default path;
}
