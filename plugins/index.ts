import type { PluginDef } from '../core/plugins/contract';
import products from './products';
import orders from './orders';

/** The static plugin registry: the compiled binary needs static imports. Add new plugins here. */
export const plugins: PluginDef[] = [products, orders];
