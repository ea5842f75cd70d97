/** How a dispute's history and evidence are answered, its list's cursor, and a document's bytes read from base64. */
import { badRequest } from '../../platform/errors/errors.js';
import { UUID_RE } from '../../platform/ids.js';
import { DOCUMENT_MAX_BYTES } from './disputes.domain.js';
import type * as repo from './disputes.repo.js';

export function presentHistory(h: repo.HistoryRow) {
  return { at: h.at.toISOString(), actor: h.actor, event: h.event, from_status: h.from_status, to_status: h.to_status, stage: h.stage, detail: h.detail };
}

export function presentEvidence(e: repo.EvidenceMeta) {
  return { uuid: e.id, kind: e.kind, name: e.name, text: e.text_value, content_type: e.content_type, size: e.size, field: e.field, created_at: e.created_at.toISOString() };
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
