import type { PageDef } from '../../../console/src/kit';
import { MembersPage } from './members';

export const consolePages: PageDef[] = [{ id: 'members', title: 'Members', order: 20, group: 'Settings', component: MembersPage }];
