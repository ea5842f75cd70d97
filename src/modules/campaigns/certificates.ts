/**
 * Certificates of MoTo payments (G3 link opening, G4 receipt): a PDF (pdf-lib) stating the evidence in
 * words, with the evidence as JSON embedded twice: as an attached file `evidence.json` (for people) and
 * in the document information (`PaygateEvidence`, with `PaygateSignature` and `PaygateKeyId`), the
 * latter signed by the gateway with Ed25519. Verifying needs only the PDF and the gateway's public key
 * (`GET /certificates/public-key`).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts, rgb } from 'pdf-lib';

/** The document information dictionary (pdf-lib keeps its accessor private; the setters use it). */
function infoDict(doc: PDFDocument): PDFDict {
  return (doc as unknown as { getInfoDict(): PDFDict }).getInfoDict();
}

export interface Evidence {
  certificate: 'LINK_OPENING' | 'RECEIPT';
  issued_at: string;
  merchant: { uuid: string; name: string };
  campaign: { uuid: string; type: string; description: string; created_at: string };
  payment: { uuid: string; line: number; amount: number; order_uuid: string };
  destination: string | null;
  channel: string | null;
  provider: string | null;
  provider_message_id: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  opened_at: string | null;
  opened_ip: string | null;
  opened_user_agent: string | null;
}

export function newKeyPair(): { publicPem: string; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

const KEY_EVIDENCE = PDFName.of('PaygateEvidence');
const KEY_SIGNATURE = PDFName.of('PaygateSignature');
const KEY_ID = PDFName.of('PaygateKeyId');

/** Builds the signed PDF. */
export async function buildCertificate(evidence: Evidence, key: { id: string; privatePem: string }): Promise<Buffer> {
  const json = JSON.stringify(evidence);
  const signature = sign(null, Buffer.from(json, 'utf8'), createPrivateKey(key.privatePem)).toString('base64');
  const doc = await PDFDocument.create();
  const title = evidence.certificate === 'LINK_OPENING' ? 'Certificate of payment link opening' : 'Certificate of payment link delivery';
  doc.setTitle(title);
  doc.setAuthor('paygate');
  doc.setSubject(`MoTo payment ${evidence.payment.uuid}`);
  doc.setCreationDate(new Date(evidence.issued_at));
  doc.setModificationDate(new Date(evidence.issued_at));
  const info = infoDict(doc);
  info.set(KEY_EVIDENCE, PDFHexString.fromText(json));
  info.set(KEY_SIGNATURE, PDFString.of(signature));
  info.set(KEY_ID, PDFString.of(key.id));
  await doc.attach(Buffer.from(json, 'utf8'), 'evidence.json', { mimeType: 'application/json', description: 'The evidence this certificate states, as signed', creationDate: new Date(evidence.issued_at), modificationDate: new Date(evidence.issued_at) });

  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let y = 790;
  const line = (text: string, opts: { size?: number; b?: boolean } = {}) => {
    // the standard fonts speak WinAnsi: anything else is shown as '?'
    const safe = text.replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');
    page.drawText(safe.slice(0, 95), { x: 50, y, size: opts.size ?? 11, font: opts.b ? bold : font, color: rgb(0.06, 0.09, 0.16) });
    y -= (opts.size ?? 11) + 8;
  };
  line(title, { size: 18, b: true });
  y -= 6;
  line(`Issued ${evidence.issued_at} by the payment gateway on behalf of ${evidence.merchant.name}.`);
  y -= 6;
  const rows: Array<[string, string | number | null]> = [
    ['Merchant', `${evidence.merchant.name} (${evidence.merchant.uuid})`],
    ['Campaign', `${evidence.campaign.description} (${evidence.campaign.uuid}), ${evidence.campaign.type}`],
    ['Campaign created', evidence.campaign.created_at],
    ['Payment', `${evidence.payment.uuid}, line ${evidence.payment.line}`],
    ['Order', evidence.payment.order_uuid],
    ['Amount (minor units)', evidence.payment.amount],
    ['Destination', evidence.destination],
    ['Channel', evidence.channel],
    ['Provider', evidence.provider],
    ['Provider message id', evidence.provider_message_id],
    ['Sent at', evidence.sent_at],
    ['Delivered at', evidence.delivered_at],
    ['First opened at', evidence.opened_at],
    ['Opened from IP', evidence.opened_ip],
    ['Opened with', evidence.opened_user_agent],
  ];
  for (const [k, v] of rows) line(`${k}: ${v === null ? '-' : String(v)}`);
  y -= 10;
  line('Verification', { b: true });
  line('The evidence above is embedded in this file as JSON (document information "PaygateEvidence"');
  line(`and the attachment evidence.json), signed with Ed25519 by the gateway key ${key.id}.`);
  line('Check it with `npx paygate certificate verify FILE`, or against the key served at');
  line('GET /certificates/public-key.');
  return Buffer.from(await doc.save());
}

export interface Verification {
  valid: boolean;
  reason: string | null;
  keyId: string | null;
  evidence: Evidence | null;
}

/** Checks a certificate against a public key (PEM). Never throws for a bad file: `valid` false. */
export async function verifyCertificate(pdf: Uint8Array, publicKeyPem: string | KeyObject): Promise<Verification> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (err) {
    return { valid: false, reason: `not a PDF: ${(err as Error).message}`, keyId: null, evidence: null };
  }
  const info = infoDict(doc);
  const ev = info.lookup(KEY_EVIDENCE);
  const sig = info.lookup(KEY_SIGNATURE);
  const kid = info.lookup(KEY_ID);
  if (!(ev instanceof PDFHexString || ev instanceof PDFString) || !(sig instanceof PDFString || sig instanceof PDFHexString)) {
    return { valid: false, reason: 'no signed evidence in this PDF', keyId: null, evidence: null };
  }
  const json = ev.decodeText();
  const keyId = kid instanceof PDFString || kid instanceof PDFHexString ? kid.decodeText() : null;
  let evidence: Evidence | null = null;
  try {
    evidence = JSON.parse(json) as Evidence;
  } catch {
    return { valid: false, reason: 'the embedded evidence is not JSON', keyId, evidence: null };
  }
  const key = typeof publicKeyPem === 'string' ? createPublicKey(publicKeyPem) : publicKeyPem;
  const ok = verify(null, Buffer.from(json, 'utf8'), key, Buffer.from(sig.decodeText(), 'base64'));
  return { valid: ok, reason: ok ? null : 'the signature does not match the evidence and this key', keyId, evidence };
}
