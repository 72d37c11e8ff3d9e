import type { PluginDef } from '../core/sdk';
import products from './products';
import orders from './orders';
import inventory from './inventory';
import locations from './locations';
import customers from './customers';
import collections from './collections';
import webhooks_mgmt from './webhooks_mgmt';
import admin from './admin';
import agents from './agents';
import custom_tools from './custom_tools';
import tool_executions from './tool_executions';
import users from './users';
import api_keys from './api_keys';
import svc_stores from './svc_stores';
import svc_login from './svc_login';
import reviews from './reviews';
import media from './media';
import image_gen from './image_gen';
import remove_bg from './remove_bg';
import qr_codes from './qr_codes';
import email from './email';
import inbox from './inbox';
import store from './store';
import coupons from './coupons';
import tax from './tax';
import wholesale from './wholesale';
import usage from './usage';
import llm from './llm';
import embeddings from './embeddings';
import enrichment from './enrichment';
import web_search from './web_search';
import fulfillment from './fulfillment';
import loyalty from './loyalty';
import workflows from './workflows';
import voice from './voice';
import phone from './phone';
import invoices from './invoices';
import storefront from './storefront';
import analytics from './analytics';
import segments from './segments';
import pipeline from './pipeline';
import audit_trail from './audit_trail';
import api_docs from './api_docs';
import local_agent from './local_agent';
import svc_status from './svc_status';
import launch_cluster from './launch_cluster';
import wallet from './wallet';
import affiliates from './affiliates';
import discovery from './discovery';
import security_scan from './security_scan';
import supply_chain from './supply_chain';
import campaigns from './campaigns';
import browser from './browser';
import documents from './documents';

/**
 * Every plugin of svc, one line each: the compiled binary needs static imports. Only the
 * composition root (core/cli.ts) reads this list; it builds the registry from it. The order is
 * the order of listings (routes, OpenAPI, tools); migrations run a plugin's after those it
 * `requires`, wherever it stands here (core/migrations.ts).
 */
export const pluginList: PluginDef[] = [
  products,
  orders,
  inventory,
  locations,
  customers,
  collections,
  reviews,
  coupons,
  tax,
  wholesale,
  fulfillment,
  loyalty,
  invoices,
  storefront,
  analytics,
  segments,
  pipeline,
  wallet,
  affiliates,
  discovery,
  supply_chain,
  webhooks_mgmt,
  agents,
  custom_tools,
  tool_executions,
  users,
  api_keys,
  svc_stores,
  store,
  svc_login,
  media,
  image_gen,
  remove_bg,
  qr_codes,
  email,
  inbox,
  campaigns,
  llm,
  embeddings,
  enrichment,
  web_search,
  security_scan,
  browser,
  documents,
  usage,
  workflows,
  voice,
  phone,
  api_docs,
  local_agent,
  svc_status,
  launch_cluster,
  admin,
  audit_trail,
];
