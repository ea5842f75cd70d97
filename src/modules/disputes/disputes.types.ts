/** The disputes module's queues, limits, inputs, presenters and the helpers its service layers share. */
import { badRequest } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { UUID_RE } from '../../platform/ids.js';
import { DISPUTE_DOCUMENTS_MAX_BYTES, DOCUMENT_MAX_BYTES, eventsFrom, evidenceFields, moneyOf, type DisputeCategory, type DisputeEvent, type DisputeStage } from './disputes.domain.js';
import * as repo from './disputes.repo.js';

export const DEADLINE_QUEUE = 'disputes.deadline';
export const REMINDER_QUEUE = 'disputes.reminder';
export const SANDBOX_DECISION_QUEUE = 'disputes.sandbox-decision';

/** Largest JSON body of the evidence route: the documents' limit in base64, with room for the text. */
export const EVIDENCE_BODY_LIMIT = Math.ceil((DISPUTE_DOCUMENTS_MAX_BYTES * 4) / 3) + 1024 * 1024;
/** Largest import file, decoded. */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
export const IMPORT_BODY_LIMIT = Math.ceil((IMPORT_MAX_BYTES * 4) / 3) + 1024 * 1024;

export interface NewDispute {
  order_uuid: string;
  transaction_uuid?: string | null;
  reason_code: string;
  category: DisputeCategory;
  amount?: number | null;
  stage?: DisputeStage | null;
  evidence_due_at?: string | null;
  acquirer?: string | null;
  provider_id?: string | null;
}

export interface EvidenceInput {
  fields?: Record<string, string> | null;
  documents?: Array<{ filename: string; data: string; field?: string | null }> | null;
}

export interface Payment {
  orderId: string;
  transactionId: string;
  amount: number;
  currency: string;
  serviceId: string | null;
  serviceType: string | null;
}

export type DisputeEventType = 'DISPUTE_CREATED' | 'DISPUTE_SUBMITTED' | 'DISPUTE_ACCEPTED' | 'DISPUTE_WON' | 'DISPUTE_LOST' | 'DISPUTE_EXPIRED' | 'DISPUTE_ESCALATED';
export const EVENT_TYPE: Record<DisputeEvent, DisputeEventType> = { SUBMIT: 'DISPUTE_SUBMITTED', ACCEPT: 'DISPUTE_ACCEPTED', WIN: 'DISPUTE_WON', LOSE: 'DISPUTE_LOST', EXPIRE: 'DISPUTE_EXPIRED', ESCALATE: 'DISPUTE_ESCALATED' };
export const DISPUTE_EVENT_TYPES = ['DISPUTE_CREATED', ...Object.values(EVENT_TYPE)] as const;

export const own = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });
export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentDispute(d: repo.DisputeRow) {
  return {
    uuid: d.id,
    order_uuid: d.order_id,
    transaction_uuid: d.transaction_id,
    source: d.source,
    acquirer: d.acquirer,
    provider_id: d.provider_id,
    reason_code: d.reason_code,
    category: d.category,
    amount: d.amount,
    currency: d.currency,
    stage: d.stage,
    status: d.status,
    evidence_due_at: d.evidence_due_at.toISOString(),
    submitted_at: iso(d.submitted_at),
    resolved_at: iso(d.resolved_at),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    money: moneyOf(d),
    evidence_fields: evidenceFields(d.category),
    actions: eventsFrom(d.status).filter((e) => e === 'SUBMIT' || e === 'ACCEPT'),
  };
}

export function presentHistory(h: repo.HistoryRow) {
  return { at: h.at.toISOString(), actor: h.actor, event: h.event, from_status: h.from_status, to_status: h.to_status, stage: h.stage, detail: h.detail };
}

export function presentEvidence(e: repo.EvidenceMeta) {
  return { uuid: e.id, kind: e.kind, name: e.name, text: e.text_value, content_type: e.content_type, size: e.size, field: e.field, created_at: e.created_at.toISOString() };
}

/** What every dispute of an order means for it, in the order's currency. */
export function orderTotals(orderId: string, ds: repo.DisputeRow[]) {
  const t = { order_uuid: orderId, currency: ds[0]?.currency ?? null, disputes: ds.length, disputed: 0, lost: 0, won: 0 };
  for (const d of ds) {
    const m = moneyOf(d);
    t.disputed += m.disputed;
    t.lost += m.lost;
    t.won += m.won;
  }
  return t;
}

export function cursorOf(d: repo.DisputeRow): string {
  return Buffer.from(`disputes:${d.created_at.toISOString()}_${d.id}`).toString('base64url');
}

export function readCursor(c: string | null | undefined): { at: Date; id: string } | null {
  if (c === undefined || c === null || c === '') return null;
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(c) ? Buffer.from(c, 'base64url').toString('utf8') : '';
  const m = /^disputes:(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_([0-9a-f-]{36})$/.exec(text);
  if (!m || Number.isNaN(Date.parse(m[1])) || !UUID_RE.test(m[2])) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
  return { at: new Date(m[1]), id: m[2] };
}

/** The bytes of a base64 document (a `data:...;base64,` prefix allowed). */
export function decodeDocument(field: string, value: string): Buffer {
  let text = value.trim();
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(text);
  if (m) {
    if (!/;base64$/i.test(m[2] ?? '')) throw badRequest(`${field} must be base64 (data:...;base64,)`);
    text = text.slice(m[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (text.length === 0) throw badRequest(`${field} is empty`);
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw badRequest(`${field} is not valid base64`);
  if (text.length > Math.ceil(DOCUMENT_MAX_BYTES / 3) * 4) throw badRequest(`${field} is larger than ${DOCUMENT_MAX_BYTES} bytes (4 MiB), the largest document accepted`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > DOCUMENT_MAX_BYTES) throw badRequest(`${field} is larger than ${DOCUMENT_MAX_BYTES} bytes (4 MiB), the largest document accepted`);
  return bytes;
}

export function decodeCsv(value: string): Buffer {
  let text = value.trim();
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(text);
  if (m) {
    if (!/;base64$/i.test(m[2] ?? '')) throw badRequest('data must be base64 (data:text/csv;base64,)');
    text = text.slice(m[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (text.length === 0) throw badRequest('data is empty');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw badRequest('data is not valid base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > IMPORT_MAX_BYTES) throw badRequest(`data is larger than ${IMPORT_MAX_BYTES} bytes (10 MiB), the largest file accepted`);
  return bytes;
}
