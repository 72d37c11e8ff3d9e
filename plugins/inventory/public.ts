/**
 * What other plugins may use of inventory: the stock ledger, and the totals it shows through
 * products. A plugin that imports this file declares `requires: ['inventory']`; nothing else of
 * this folder is for import from outside.
 */
export { defaultLocation, dropVariant, putBack, setTotal, take, type Allocation } from './stock';
export { firstStockCtes } from './location-stock';
export { lockStock, productStockSql, retire, variantStockSql } from './totals';
