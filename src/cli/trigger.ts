/**
 * `paygate trigger <scenario>`: runs a named sandbox scenario against a gateway through its public API
 * (the same calls an integration makes) and reports each step. With `--url-post` the orders notify that
 * URL as any order does (and `paygate listen` streams those notifications), so `trigger` is a quick way
 * to exercise an integration's handlers.
 */
import { TEST_CARDS } from '../processors/index.js';

export const SCENARIOS = {
  'payment.approved': 'an order paid with a card that approves',
  'payment.refused': 'an order paid with a card the issuer refuses',
  'payment.3ds': 'a secure order: the card needs 3-D Secure, the answer links the challenge page',
  'payment.deferred': 'a DEFERRED order (authorisation held), then captured with a confirmation',
  'payment.refund': 'an approved order, then refunded in full',
  dispute: 'a dispute raised by the sandbox on a paid order (--order, else a new approved one), decided --outcome (won or lost) once its evidence is submitted (docs/disputes.md)',
} as const;
export type Scenario = keyof typeof SCENARIOS;

export interface Target {
  url: string;
  apiKey: string;
  signature: string;
  service?: string | null;
  /** The orders' url_post: the gateway notifies it (and `paygate listen` streams the notification). */
  urlPost?: string | null;
  /** `dispute`: the paid order disputed (absent: a new approved order). */
  order?: string | null;
  /** `dispute`: how the sandbox decides it once its evidence is submitted. */
  outcome?: 'WON' | 'LOST';
}

export interface Step {
  call: string;
  status: number;
  summary: string;
  body: any;
}

async function call(t: Target, path: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url.replace(/\/$/, '')}/v1/sandbox${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ signature: t.signature, ...body }),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

/** One line for a step's answer; a 303 (3-D Secure) names the challenge page to open. */
export function summary(body: any): string {
  const o = body?.order;
  if (o) {
    const tx = Array.isArray(o.transactions) ? o.transactions[o.transactions.length - 1] : null;
    const challenge = body?.code === 303 && typeof body.url === 'string' ? `; challenge page: ${body.url}` : '';
    return `order ${o.uuid} ${o.status}${tx ? ` (last transaction ${tx.operative} ${tx.status}${tx.error && tx.error !== 'NONE' ? `, ${tx.error}` : ''})` : ''}${challenge}`;
  }
  const d = body?.dispute;
  if (d) return `dispute ${d.uuid} ${d.status}: ${d.stage} ${d.reason_code} (${d.category}) of ${d.amount} ${d.currency} on order ${d.order_uuid}, evidence due ${d.evidence_due_at}`;
  if (body?.Source) return `card ${body.Source.uuid} stored (${body.Source.brand} ••••${body.Source.last4})`;
  return body?.details ?? body?.message ?? '';
}

/** Runs `scenario`; `report` is called after each step. Throws on an unexpected answer. */
export async function runScenario(t: Target, scenario: Scenario, report: (s: Step) => void = () => {}): Promise<Step[]> {
  const steps: Step[] = [];
  const step = async (label: string, path: string, body: Record<string, unknown>, accepted: number[] = [200]) => {
    const r = await call(t, path, body);
    const s = { call: `${label}: POST /v1/sandbox${path}`, status: r.status, summary: summary(r.body), body: r.body };
    steps.push(s);
    report(s);
    if (!accepted.includes(r.status)) throw new Error(`${s.call} answered ${r.status}: ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`);
    return r.body;
  };
  if (scenario === 'dispute' && t.order) {
    await step('raise a dispute', '/disputes/simulate', { order_uuid: t.order, outcome: t.outcome ?? 'WON' });
    return steps;
  }
  const customer = `trigger-${Date.now().toString(36)}`;
  const pan = scenario === 'payment.refused' ? TEST_CARDS.REFUSED : scenario === 'payment.3ds' ? TEST_CARDS.THREEDS_OK : TEST_CARDS.APPROVED;
  const order = await step('create the order', '/payment', {
    amount: 1250,
    operative: scenario === 'payment.deferred' ? 'DEFERRED' : 'AUTHORIZATION',
    secure: scenario === 'payment.3ds',
    description: `paygate trigger ${scenario}`,
    customer_ext_id: customer,
    ...(t.service ? { service: t.service } : { currency: 'EUR' }),
    ...(t.urlPost ? { url_post: t.urlPost } : {}),
  });
  const card = await step('store a test card', '/payment-method/card', {
    customer_ext_id: customer,
    card_holder: 'Trigger Test',
    card_pan: pan,
    card_expiry_month: '12',
    card_expiry_year: String((new Date().getUTCFullYear() + 3) % 100),
  });
  // 3-D Secure: 303 with the challenge page's URL (open it in a browser to approve or fail)
  await step('pay it', '/payment/direct', { order_uuid: order.order.uuid, card_uuid: card.Source.uuid }, scenario === 'payment.3ds' ? [200, 303] : [200]);
  if (scenario === 'payment.deferred') await step('capture it', '/payment/confirmation', { order_uuid: order.order.uuid });
  if (scenario === 'payment.refund') await step('refund it', '/payment/refund', { order_uuid: order.order.uuid });
  if (scenario === 'dispute') await step('raise a dispute', '/disputes/simulate', { order_uuid: order.order.uuid, outcome: t.outcome ?? 'WON' });
  return steps;
}
