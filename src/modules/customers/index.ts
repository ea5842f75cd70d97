/** Customers: the only file other modules import. */
export { findCustomer, findCustomerById, ensureCustomer } from './customers.repo.js';
export type { CustomerRow, Owner } from './customers.repo.js';
