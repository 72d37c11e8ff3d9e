import type { PageDef } from '../../../console/src/kit';
import { InboxPage } from './inbox';

export const consolePages: PageDef[] = [{ id: 'inbox', title: 'Inbox', order: 100, visible: (c) => c.can('inbox:read'), component: InboxPage }];
