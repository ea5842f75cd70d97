/** The MoTo records as the API shows them (campaign detail, campaign payment, MoTo order). */
import type { PresentedOrder } from '../payments/index.js';
import { motoOrderStatus } from './campaigns.domain.js';
import type { CampaignRow, PaymentRow } from './campaigns.repo.js';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentCampaign(c: CampaignRow) {
  return {
    uuid: c.id,
    clientID: c.merchant_id,
    clientUUID: c.merchant_id,
    createdAt: iso(c.created_at)!,
    description: c.description,
    entry: c.entry,
    error: c.error,
    expiresAt: iso(c.expires_at)!,
    filename: c.filename,
    serviceUUID: c.service_id,
    status: c.status,
    subject: c.subject,
    type: c.type,
    paymentCount: c.payment_count,
  };
}

export function presentPayment(p: PaymentRow, c: CampaignRow, link: string) {
  return {
    uuid: p.id,
    line: p.line,
    amount: Number(p.amount),
    currencyID: null as string | null,
    operative: p.operative,
    isSafe: p.secure,
    destination: p.destination,
    externalID: p.customer_ext_id,
    additional: p.additional,
    cardTemplate: p.card_template,
    moToTemplate: p.moto_template,
    dccTemplate: p.dcc_template,
    language: p.language,
    status: p.status,
    error: p.error,
    certificateIdentifier: p.id,
    createdAt: iso(p.created_at)!,
    extraData: null,
    // ours
    orderUUID: p.order_id,
    link,
    channel: c.type === 'CUSTOM_DELIVERY' ? null : p.channel,
    sentAt: iso(p.sent_at),
    deliveredAt: iso(p.delivered_at),
    openedAt: iso(p.opened_at),
    paidAt: iso(p.paid_at),
  };
}

export function presentMotoOrder(p: PaymentRow, c: CampaignRow, o: PresentedOrder) {
  return {
    orderUUID: o.uuid,
    destination: p.destination,
    moToPaymentStatus: motoOrderStatus(o.paid),
    expiresAt: iso(c.expires_at)!,
    createdAt: iso(p.created_at)!,
    amount: o.amount,
    isPaid: o.paid,
    isSafe: o.safe,
    orderType: 'MOTO',
    operative: p.operative,
    description: c.description,
    token: o.token,
    externalID: p.customer_ext_id,
    filename: c.filename,
    additional: o.additional,
    // ours
    status: o.status,
    paymentUUID: p.id,
  };
}
