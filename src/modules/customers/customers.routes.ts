/** HTTP of customers: E1–E12 (decisions §3). Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './customers.schemas.js';
import type { CustomersService } from './customers.service.js';

/** Writes: keys that may store cards or take payments; reads: readonly too (decisions §2). */
const WRITE = ['payment', 'card', 'tokenize'] as const;
const READ = ['readonly', 'payment', 'card', 'tokenize'] as const;

export function customersRoutes(service: CustomersService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['customers'];

    app.post('/customer', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createCustomer',
        summary: 'E1 Create customer',
        description: 'Creates the customer; when it already exists the existing customer is returned. `token` opens the embedded card form (`/js/v1-iframe.js`) for this customer for an hour (`PAYGATE_CUSTOMER_TOKEN_TTL_S`); every call extends it, and an expired or revoked token is replaced by a new one.',
        tags, body: S.CreateCustomerBody, response: responses(S.CustomerResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { Customer: await service.create(ctx, req.body.customer_ext_id) });
    });

    app.delete('/customer/token', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'revokeCustomerToken',
        summary: 'Revoke a customer token',
        description: 'The token `POST /customer` returned no longer opens the embedded card form (`/js/v1-iframe.js`). The next `POST /customer` issues a new one.',
        tags, body: S.RevokeTokenBody, response: responses(S.EmptyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      await service.revokeToken(ctx, req.body.customer_ext_id);
      return ok(ctx);
    });

    app.get('/customer', {
      config: { profiles: READ },
      schema: {
        operationId: 'getCustomer',
        summary: 'Read a customer by customer_ext_id',
        description: '`customer_ext_id` as a query parameter, or in a JSON body (read like query parameters).',
        tags, querystring: S.CustomerQuery, response: responses(S.CustomerResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { Customer: await service.get(ctx, req.query.customer_ext_id) });
    });

    // ---- accounts -------------------------------------------------------------------------------------
    app.post('/customer/account', {
      config: { profiles: WRITE },
      schema: { operationId: 'createCustomerAccount', summary: 'E2 Create account', description: 'Adds a bank or payment account to an existing customer (404 when the customer does not exist). The number is stored encrypted.', tags, body: S.CreateAccountBody, response: responses(S.AccountResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createAccount(ctx, req.body));
    });

    app.put('/customer/account', {
      config: { profiles: WRITE },
      schema: { operationId: 'updateCustomerAccount', summary: 'E3 Update account', description: 'Replaces the type and number of the account `uuid` of the customer.', tags, body: S.UpdateAccountBody, response: responses(S.AccountResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.updateAccount(ctx, req.body));
    });

    app.delete('/customer/account', {
      config: { profiles: WRITE },
      schema: { operationId: 'deleteCustomerAccount', summary: 'E4 Delete account', description: 'Deletes the account `uuid` and answers it as it was.', tags, body: S.UuidBody, response: responses(S.AccountOnlyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { customer_account: await service.deleteAccount(ctx, req.body.uuid) });
    });

    app.get('/customer/account/:uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getCustomerAccount', summary: 'E5 Get account', description: 'One account by uuid; an account of another merchant is 404.', tags, params: S.UuidParams, response: responses(S.AccountOnlyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { customer_account: await service.getAccount(ctx, req.params.uuid) });
    });

    // ---- addresses ------------------------------------------------------------------------------------
    app.post('/customer/address', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createCustomerAddress',
        summary: 'E6 Create address',
        description: 'Lines of at most 50 characters; `country` ISO 3166 alpha-3; `default: true` makes it the only default address of the customer.',
        tags, body: S.CreateAddressBody, response: responses(S.AddressResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createAddress(ctx, req.body));
    });

    app.put('/customer/address', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'updateCustomerAddress',
        summary: 'E7 Update address',
        description: 'Fields left out keep their value. `type` cannot change: sending another type is 400.',
        tags, body: S.UpdateAddressBody, response: responses(S.AddressResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.updateAddress(ctx, req.body));
    });

    app.delete('/customer/address', {
      config: { profiles: WRITE },
      schema: { operationId: 'deleteCustomerAddress', summary: 'E8 Delete address', description: 'Deletes the address `uuid` and answers it as it was.', tags, body: S.UuidBody, response: responses(S.AddressOnlyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { customer_address: await service.deleteAddress(ctx, req.body.uuid) });
    });

    app.get('/customer/address/:uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getCustomerAddress', summary: 'E9 Get address', description: 'One address by uuid; an address of another merchant is 404.', tags, params: S.UuidParams, response: responses(S.AddressOnlyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { customer_address: await service.getAddress(ctx, req.params.uuid) });
    });

    // ---- profiles -------------------------------------------------------------------------------------
    app.post('/customer/profile', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createCustomerProfile',
        summary: 'E10 Create profile',
        description: 'One profile per customer (409 when it exists). Phones are validated; `birthdate` is YYYY-MM-DD.',
        tags, body: S.ProfileBody, response: responses(S.ProfileResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createProfile(ctx, req.body));
    });

    app.put('/customer/profile', {
      config: { profiles: WRITE },
      schema: { operationId: 'updateCustomerProfile', summary: 'E11 Update profile', description: 'Replaces the profile with the body: fields left out become null. 404 when the customer has no profile.', tags, body: S.ProfileBody, response: responses(S.ProfileResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.updateProfile(ctx, req.body));
    });

    app.get('/customer/profile/:external_id', {
      config: { profiles: READ },
      schema: { operationId: 'getCustomerProfile', summary: 'E12 Get profile', description: 'The profile of the customer `external_id`.', tags, params: S.ProfileParams, response: responses(S.ProfileOnlyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { customer_profile: await service.getProfile(ctx, req.params.external_id) });
    });
  };
}
