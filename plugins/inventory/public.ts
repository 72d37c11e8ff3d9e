/**
 * What other plugins may use of inventory: the stock ledger. A plugin that imports this file
 * declares `requires: ['inventory']`; nothing else of this folder is for import from outside.
 */
export { defaultLocation, dropVariant, lockProduct, putBack, setTotal, take, variantOf, type Allocation } from './stock';
export { emptyInto, firstStockCtes, liveUnitsAt, lockArchivedHeldAt } from './location-stock';
export { returnUnits } from './returns';
