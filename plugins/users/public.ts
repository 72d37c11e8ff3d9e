/** What other plugins (svc_stores, svc_login) may use of the users plugin. */
export { endGrant, storesOfUser, switchGrant } from './switch';
export { deviceLogin, logout, refreshLogin } from './agent-login';
