/**
 * The dashboard API routes of the customers area: what the merchant API has no operation for — the list
 * of the merchant's customers (searchable) and one customer with its accounts, addresses and profile
 * together. Sources, changes and holder verification go through the bridge (E, F operations).
 */
import { Nullable, Type, envelope, responses } from '../../../platform/http/schemas.js';
import { CustomerAccountSchema, CustomerAddressSchema, CustomerProfileSchema } from '../../customers/index.js';
import type { Area } from './kit.js';

const PAGE = 50;

const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'part of the external id, the profile name or e-mail (any case)' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'the `next_cursor` of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: PAGE })),
});
const CustomerRow = Type.Object({
  external_id: Type.String(),
  name: Nullable(Type.String({ description: 'first and last name of the profile' })),
  email: Nullable(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 UTC' }),
});
const ListResponse = envelope({ customers: Type.Array(CustomerRow), next_cursor: Nullable(Type.String({ description: 'null on the last page' })) });

const DetailQuery = Type.Object({ external_id: Type.String({ minLength: 1, maxLength: 255 }) });
const DetailResponse = envelope({
  customer: Type.Object({
    external_id: Type.String(),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
    accounts: Type.Array(CustomerAccountSchema),
    addresses: Type.Array(CustomerAddressSchema),
    profile: Nullable(CustomerProfileSchema),
  }),
});

export const area: Area = {
  routes(kit) {
    kit.app.get('/customers', {
      config: { dashboard: { permission: 'cards.read' } },
      schema: { querystring: ListQuery, response: responses(ListResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      return kit.done(await kit.service.deps.customers.search(ctx, { q: req.query.q, cursor: req.query.cursor, limit: req.query.limit ?? PAGE }));
    });

    kit.app.get('/customers/one', {
      config: { dashboard: { permission: 'cards.read' } },
      schema: { querystring: DetailQuery, response: responses(DetailResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      return kit.done({ customer: await kit.service.deps.customers.detail(ctx, req.query.external_id) });
    });
  },
  docs: {
    'GET /customers': {
      operationId: 'listCustomers',
      tag: 'customers',
      summary: 'List and search customers',
      description: 'The customers of the merchant looked at, in external id order, 50 a page (`limit`), paged by `next_cursor`; `q` finds those whose external id, profile name or e-mail contains it.',
    },
    'GET /customers/one': {
      operationId: 'getCustomerDetail',
      tag: 'customers',
      summary: 'A customer with its accounts, addresses and profile',
      description: 'The customer `external_id` with every account (numbers as E5 shows them), address and its profile (null when it has none). Its stored sources: F10 through the bridge.',
    },
  },
  tag: { name: 'customers', description: 'Customers of the merchant, their accounts, addresses and profiles.' },
};
