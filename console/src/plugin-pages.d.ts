/** The plugins' console pages, one list per plugin: made by console/build.ts at bundle time. */
declare module 'svc:plugin-pages' {
  import type { PageDef } from './kit/page';
  export const pluginPages: PageDef[][];
}
