import type { PluginDef } from '../core/plugins/contract';
import products from './products';
import orders from './orders';
import customers from './customers';
import collections from './collections';
import inventory from './inventory';
import locations from './locations';
import webhooks_mgmt from './webhooks_mgmt';
import { agentsPlugin } from './agents';
import { customToolsPlugin } from './custom_tools';
import { toolExecutionsPlugin } from './tool_executions';

/** The static plugin registry: the compiled binary needs static imports. Add new plugins here. */
export const plugins: PluginDef[] = [products, orders, inventory, locations, customers, collections, webhooks_mgmt,
  agentsPlugin({ plugins: () => plugins }), customToolsPlugin({ plugins: () => plugins }), toolExecutionsPlugin({ plugins: () => plugins })];
