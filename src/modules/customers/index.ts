/** Customers (E1–E12): the only file other modules import. */
export { CustomersService, presentCustomer, presentAddress } from './customers.service.js';
export { customersRoutes } from './customers.routes.js';
export { findCustomer, findCustomerById, ensureCustomer, findContact, externalIdsByEmail } from './customers.repo.js';
export type { CustomerRow, Owner, PhoneJson } from './customers.repo.js';
export { Customer as CustomerSchema, ExtId as ExtIdSchema, CustomerAccount as CustomerAccountSchema, CustomerAddress as CustomerAddressSchema, CustomerProfile as CustomerProfileSchema } from './customers.schemas.js';
