/**
 * What other plugins may use of products: the product as the API shows it, so a plugin listing
 * products (collections' list_collection_products) answers the one shape without copying it.
 * A plugin that imports this file declares `requires: ['products']`.
 */
export { toProduct } from './store';
export { Product } from './schemas';
