/**
 * Everything a console page may use, in one module: plugins' pages (plugins/<name>/console/)
 * import the console only through this file, the way plugins import the core only through
 * core/sdk.ts (test/contract/imports.test.ts holds them to it). Besides this, a page imports
 * preact and preact/hooks.
 */
export { api, apiDataUrl, follow, postStream, query, type Answer, type ApiError } from '../api';
export { useConsole, type ConsoleCtx, type Execution } from '../context';
export { duration, ErrorLine, Field, Json, Notice, PageHeader, Select, TextArea, useAction, useNow, when } from '../ui';
export { BarChart, ColumnChart } from '../charts';
export { FilterForm, ResourceList, ResourceTable, Status, useCursorList, type Column, type CursorList } from './list';
export { toggled, useEditor, useResource } from './editor';
export type { PageDef } from './page';
