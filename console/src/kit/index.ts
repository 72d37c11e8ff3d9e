/**
 * Everything a console page may use, in one module: plugins' pages (plugins/<name>/console/)
 * import the console only through this file, the way plugins import the core only through
 * core/sdk.ts (test/contract/imports.test.ts holds them to it). Besides this, a page imports
 * preact and preact/hooks. The API's shapes come from the generated console/src/api-types.ts
 * (console/api-types.ts): `Resource<'/products/{id}'>`, `Item<'/products'>`, `Body<'POST', '/products'>`.
 */
export { api, apiDataUrl, follow, postStream, query, type Answer, type ApiError } from '../api';
export { useConsole, type ConsoleCtx, type Execution } from '../context';
export { duration, ErrorLine, Field, Json, Notice, PageHeader, Select, TextArea, useAction, useNow, when } from '../ui';
export { BarChart, ColumnChart } from '../charts';
export { FilterForm, ResourceList, ResourceTable, Status, useCursorList, type Column, type CursorList } from './list';
export { toggled, useEditor, useResource } from './editor';
export { valuesOf } from './values';
export type { PageDef } from './page';
/** The API's types, by route: a page names the route, never a resource shape of its own. */
export type { Body, Item, Operation, Query, Reply, Resource } from '../api-paths';
