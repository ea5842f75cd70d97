/** The readers the PayPal mappings share (mapping.ts, mapping-disputes.ts): a short string, an object. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);
export const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
