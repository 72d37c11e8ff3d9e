import type { PageDef } from '../../../console/src/kit';
import { ApiKeysPage } from './api-keys';

export const consolePages: PageDef[] = [
  { id: 'api-keys', title: 'API keys', order: 10, group: 'Settings', visible: (c) => c.can('platform:write'), component: ApiKeysPage },
];
