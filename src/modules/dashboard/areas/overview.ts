/**
 * The dashboard API routes of the overview area: the figures of the landing page (payments of a period
 * and of the period before it, per currency), computed by the payments module's `overview`.
 */
import Type from 'typebox';
import { Nullable, envelope, responses } from '../../../platform/http/schemas.js';
import { OVERVIEW_MAX_DAYS, OVERVIEW_PERIODS, type OverviewPeriod } from '../../payments/index.js';
import type { Area } from './kit.js';

const Day = Type.String({ pattern: '^\\d{4}-\\d\\d-\\d\\d$', description: 'a day in the merchant\'s timezone, YYYY-MM-DD' });
const Count = Type.Integer({ minimum: 0 });
const Amount = Type.Integer({ minimum: 0, description: 'minor units of the currency' });

const OverviewQuery = Type.Object({
  period: Type.Optional(Type.Unsafe<OverviewPeriod>({ type: 'string', enum: [...OVERVIEW_PERIODS], description: 'today, the last 7, 30 or 90 days (today included), or custom (from, to); default 30d' })),
  from: Type.Optional(Type.String({ maxLength: 10, description: 'first day of a custom period (YYYY-MM-DD)' })),
  to: Type.Optional(Type.String({ maxLength: 10, description: `last day of a custom period, included (YYYY-MM-DD); at most ${OVERVIEW_MAX_DAYS} days` })),
}, { additionalProperties: false });

const Figures = Type.Object({
  orders: Type.Integer({ minimum: 0, description: 'payment orders (AUTHORIZATION, PARTIAL_AUTHORIZATION, DEFERRED) created in the period' }),
  paid: Type.Integer({ minimum: 0, description: 'of those orders, the ones paid now' }),
  conversion: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'paid / orders (null without orders)' })),
  volume: Type.Integer({ minimum: 0, description: 'amount of the successful AUTHORIZATION and CONFIRMATION transactions created in the period' }),
  charges: Type.Integer({ minimum: 0, description: 'their count' }),
  refunds: Type.Object({ count: Count, amount: Amount }, { description: 'successful REFUND transactions created in the period' }),
  disputes_lost: Type.Object({ orders: Count, amount: Amount }, { description: 'money out to disputes lost (LOST, ACCEPTED, EXPIRED) in the period, on the days they were lost; orders: the orders whose first loss it was' }),
  net: Type.Integer({ description: 'volume - refunds - disputes lost (may be negative)' }),
  declines: Type.Array(Type.Object({ reason: Type.String(), count: Count }), { description: 'REFUSED or ERROR payment attempts created in the period, by error' }),
  threeds: Type.Array(Type.Object({ outcome: Type.String(), count: Count }), { description: 'orders of the period by 3-D Secure outcome (NOT_ATTEMPTED: paid without 3-D Secure)' }),
  methods: Type.Array(Type.Object({ method: Type.String(), kind: Type.String(), count: Count, amount: Amount }), { description: 'successful payment attempts of the period by method (CARD:<brand>, a wallet, an APM)' }),
  series: Type.Array(Type.Object({ date: Day, orders: Count, paid: Count, volume: Amount, refunds: Amount, disputes_lost: Amount, net: Type.Integer(), declines: Count }), { description: 'one entry per day of the period' }),
});

const OverviewResponse = envelope({
  overview: Type.Object({
    period: Type.String(),
    timezone: Type.String({ description: 'the merchant\'s timezone: the days are its days' }),
    from: Day,
    to: Day,
    previous: Type.Object({ from: Day, to: Day }, { description: 'the period of the same length just before' }),
    days: Type.Integer({ minimum: 1 }),
    currencies: Type.Array(Type.Object({ currency: Type.String({ description: 'ISO 4217 alpha-3' }), current: Figures, previous: Figures }), { description: 'one entry per currency with figures in either period, the largest volume first' }),
  }),
});

export const area: Area = {
  routes(kit) {
    kit.app.get('/overview', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { querystring: OverviewQuery, response: responses(OverviewResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const overview = await kit.service.deps.payments.overview(ctx, { period: req.query.period ?? '30d', from: req.query.from, to: req.query.to });
      // the answer is checked against OverviewResponse by the route's response schema
      return kit.done({ overview });
    });
  },
  docs: {
    'GET /overview': {
      operationId: 'dashboardOverview',
      summary: 'The overview of the payments of a period',
      description: 'Orders, paid orders and conversion, volume, refunds, declines by reason, 3-D Secure outcomes and payment methods of today, the last 7, 30 or 90 days or a custom range of days in the merchant\'s timezone, with the same figures for the period of the same length just before, per currency, and a daily series for the charts.',
      tag: 'Dashboard overview',
    },
  },
  tag: { name: 'Dashboard overview', description: 'The landing page\'s figures of the merchant\'s payments.' },
};
