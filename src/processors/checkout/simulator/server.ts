/**
 * The Checkout.com simulator: a separate HTTP server speaking the Payments API as Checkout.com's public
 * API reference describes it (spec.ts), for the tests and for demos (`npx paygate checkout-simulator`,
 * then PAYGATE_CHECKOUT_URL=http://127.0.0.1:PORT).
 *
 *  - Every request it receives and every answer and webhook it gives is checked against the reference's
 *    schemas (`spec`, a SpecLedger): a request the reference does not allow is answered 422
 *    `request_invalid` with `error_codes`, as Checkout.com answers an invalid request, and recorded; an
 *    answer of its own that the reference does not allow is recorded (the tests fail on either).
 *  - `POST /payments` (card source; capture or not; Regular, MOTO, or merchant-initiated with
 *    `source.stored`, `previous_payment_id` and payment_type Recurring, Installment or Unscheduled;
 *    amount 0 verifies the card), answered 201, or 202 Pending with `_links.redirect` when `3ds.enabled`
 *    asks Checkout.com to authenticate (its 3-D Secure page: `/sim/3ds/{id}`, which sends the cardholder
 *    back to success_url or failure_url with `cko-session-id`); 401 for an unknown secret key. The flags
 *    a payment came with are kept (`payment(id).request`).
 *  - `POST /payments/{id}/captures|voids|refunds` → 202 {action_id, reference}: accepted, decided later,
 *    as Checkout.com processes them asynchronously. Right after the answer (or when the test calls
 *    `decide()`, with `holdDecisions`) the action is approved, or declined when a test asked for it
 *    (`declineNextFollowUp`); then it appears among the payment's actions and its webhook is sent
 *    (`payment_captured` / `payment_capture_declined`, `payment_voided` / `payment_void_declined`,
 *    `payment_refunded` / `payment_refund_declined`). 403 (no body) when the action is not allowed (more
 *    than is left, a voided payment...).
 *  - `GET /payments?reference=` and `GET /payments/{id}`: payment details, `status` and `approved` and no
 *    response code (by a `sid_` session id they also carry the summary of the payment's actions);
 *    `GET /payments/{id}/actions`, latest first, each with its response code.
 *  - `Cko-Idempotency-Key`: a request repeated under the same key gets the first answer;
 *  - webhooks (payment_approved, payment_declined, card_verified, payment_captured, and the follow-ups'
 *    above) posted to the webhook URL, signed `Cko-Signature` (hex HMAC-SHA256 of the raw body with the
 *    webhook's signature key); through `transport` when a test sets one;
 *  - the kit's server (kit/simulator.ts): latency and the faults tests use (`tamper`: the answer altered
 *    on the way: approved, another amount), webhooks through `transport` when a test sets one.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { challengePage, readMultipart, type SimRequest } from '../../kit/simulator.js';
import { decide } from './rules.js';
import { type SimPayment, type SimDispute, errorCodesOf, ALNUM, id } from './model.js';
import { CheckoutSimulatorCore } from './core.js';

export { type CheckoutSimAccount, type CheckoutSimulatorOptions, type CheckoutFaultKind, type WebhookTransport, type SimPaymentRequestFlags, type SimDispute, errorCodesOf } from './model.js';

export class CheckoutSimulator extends CheckoutSimulatorCore {
  // ---- disputes (Disputes API) ---------------------------------------------------------------------------

  /**
   * Raises a dispute on a captured payment, as an issuer would: `evidence_required`, due 7 days later
   * (Checkout.com: `received_on` + the scheme's days), and its `dispute_evidence_required` webhook. Once
   * its evidence is submitted, `decideDisputes` decides it as `outcome` says (won by default).
   */
  async raiseDispute(paymentId: string, opts: { category?: string; reasonCode?: string; amount?: number; outcome?: 'won' | 'lost'; dueInDays?: number } = {}): Promise<SimDispute> {
    const p = this._payments.get(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    const now = this.now();
    const d: SimDispute = {
      id: `dsp_${Array.from({ length: 22 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`,
      p, category: opts.category ?? 'fraudulent', reasonCode: opts.reasonCode ?? '10.4', amount: opts.amount ?? p.amount - p.refunded,
      status: 'evidence_required', outcome: opts.outcome ?? 'won', evidence: null,
      receivedOn: now.toISOString(), requiredBy: new Date(now.getTime() + (opts.dueInDays ?? 7) * 86400_000).toISOString(), lastUpdate: now.toISOString(),
    };
    this._disputes.set(d.id, d);
    await this._disputeWebhook(d, 'dispute_evidence_required');
    return d;
  }

  /** Decides every dispute whose evidence was submitted, as each was raised to be decided, and sends its webhook. */
  async decideDisputes(): Promise<void> {
    for (const d of this._disputes.values()) {
      if (d.status !== 'evidence_under_review') continue;
      d.status = d.outcome;
      d.lastUpdate = this.now().toISOString();
      await this._disputeWebhook(d, d.outcome === 'won' ? 'dispute_won' : 'dispute_lost');
    }
  }

  /** A dispute as the simulator keeps it (tests). */
  dispute(id: string): Readonly<SimDispute> | undefined {
    return this._disputes.get(id);
  }

  /** A file uploaded for evidence (tests). */
  file(id: string): Readonly<{ filename: string; contentType: string; content: Buffer }> | undefined {
    return this._files.get(id);
  }

  /** POST /files: a JPEG, PNG or PDF of at most 4 MB for dispute evidence ([REF] paths/files.yaml). */
  protected override async _uploadFile(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const answer = (status: number, body: unknown) => {
      this.spec.response('uploadAFile', status, body);
      this.write(res, status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ?? '';
    if (!this._opts.accounts[key]) return answer(401, null);
    const parts = readMultipart(r.bytes, String(r.headers['content-type'] ?? ''));
    const invalid = (code: string) => answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: [code] });
    if (!parts) return invalid('request_body_malformed');
    const fields = Object.fromEntries(parts.filter((p) => p.filename === null).map((p) => [p.name, p.content.toString('utf8')]));
    const problems = this.spec.request('uploadAFile', fields);
    if (problems.length > 0) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: errorCodesOf(problems) });
    const file = parts.find((p) => p.name === 'file' && p.filename !== null);
    if (!file) return invalid('file_required');
    const head = file.content.subarray(0, 8);
    const type = head.subarray(0, 5).toString('latin1') === '%PDF-' ? 'application/pdf' : head.equals(Buffer.from('89504e470d0a1a0a', 'hex')) ? 'image/png' : head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff ? 'image/jpeg' : null;
    if (!type) return invalid('file_type_invalid');
    if (file.content.length > 4 * 1024 * 1024) return invalid('file_too_large');
    const fileId = `file_${Array.from({ length: 20 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
    this._files.set(fileId, { secretKey: key, filename: file.filename!, contentType: type, content: Buffer.from(file.content) });
    return answer(200, { id: fileId, _links: { self: { href: `${this.url}/files/${fileId}` } } });
  }

  protected _disputeSummary(d: SimDispute) {
    return {
      id: d.id, category: d.category, status: d.status, amount: d.amount, currency: d.p.currency, reason_code: d.reasonCode,
      payment_id: d.p.id, payment_action_id: d.p.actions[0]?.id, payment_reference: d.p.reference, payment_method: d.p.bin.startsWith('4') ? 'Visa' : 'Mastercard',
      evidence_required_by: d.requiredBy, received_on: d.receivedOn, last_update: d.lastUpdate,
    };
  }

  protected async _disputeWebhook(d: SimDispute, type: string): Promise<void> {
    const account = this._opts.accounts[d.p.secretKey];
    if (!account?.webhookUrl) return;
    const eventId = id('evt_');
    const event = { id: eventId, type, version: '1.0.33', created_on: this.now().toISOString(), data: this._disputeSummary(d), _links: { self: { href: `${this.url}/workflows/events/${eventId}` } } };
    this.spec.response('webhook', type, event);
    await this.send(account.webhookUrl, JSON.stringify(event), account.webhookKey);
  }

  /** GET /disputes/{id}, PUT and POST /disputes/{id}/evidence, POST /disputes/{id}/accept: each checked against the reference. */
  protected override async _disputeApi(r: SimRequest, res: http.ServerResponse): Promise<void> {
    const m = /^\/disputes\/(dsp_\w+)(\/evidence|\/accept)?$/.exec(r.url.pathname);
    const op = !m ? null : !m[2] && r.method === 'GET' ? 'getDisputeDetails' : m[2] === '/evidence' && r.method === 'PUT' ? 'provideDisputeEvidence' : m[2] === '/evidence' && r.method === 'POST' ? 'submitDisputeEvidence' : m[2] === '/accept' && r.method === 'POST' ? 'acceptDispute' : null;
    if (!m || !op) return this.write(res, 404, null);
    const answer = (status: number, body: unknown) => {
      this.spec.response(op, status, body);
      this.write(res, status, body);
    };
    const key = /^Bearer (\S+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ?? '';
    if (!this._opts.accounts[key]) return answer(401, null);
    const d = this._disputes.get(m[1]);
    if (!d || d.p.secretKey !== key) return answer(404, null);
    if (op === 'getDisputeDetails') {
      const { payment_id: _p, payment_action_id: _a, payment_reference: _r, payment_method: method, ...rest } = this._disputeSummary(d);
      return answer(200, { ...rest, payment: { id: d.p.id, action_id: d.p.actions[0]?.id, amount: d.p.amount, currency: d.p.currency, method }, _links: { self: { href: `${this.url}/disputes/${d.id}` } } });
    }
    if (op === 'provideDisputeEvidence') {
      const body = r.raw === '' ? undefined : (JSON.parse(r.raw) as unknown);
      const problems = this.spec.request(op, body);
      if (problems.length > 0) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: errorCodesOf(problems) });
      if (d.status !== 'evidence_required') return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_evidence_not_required'] });
      // a file named must be one this account uploaded
      const unknownFile = Object.entries(body as Record<string, string>).some(([k, v]) => k.endsWith('_file') && this._files.get(v)?.secretKey !== key);
      if (unknownFile) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['file_not_found'] });
      d.evidence = { ...(d.evidence ?? {}), ...(body as Record<string, string>) };
      return answer(204, null);
    }
    if (d.status !== 'evidence_required') return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_not_open'] });
    if (op === 'submitDisputeEvidence') {
      if (!d.evidence) return answer(422, { request_id: id('req_'), error_type: 'request_invalid', error_codes: ['dispute_evidence_required'] });
      d.status = 'evidence_under_review';
    } else d.status = 'accepted';
    d.lastUpdate = this.now().toISOString();
    return answer(204, null);
  }


  // ---- Checkout.com's 3-D Secure page ------------------------------------------------------------------

  /** The authentication page: the cardholder passes or fails; then back to success_url or failure_url. */
  protected override async _threedsPage(method: string, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const p = this._payments.get(url.pathname.slice('/sim/3ds/'.length));
    if (!p?.pending3ds) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown or finished authentication');
    const result = method === 'POST' ? new URLSearchParams(raw).get('result') : null;
    if (result !== 'Y' && result !== 'N') {
      // the page itself (a redirect, or a form posting creq to it)
      return this.html(res, 200, challengePage({ title: '3-D Secure', heading: '3-D Secure authentication (simulator)', lines: [`Amount ${p.amount} ${p.currency}, card ending ${p.last4}`], action: `/sim/3ds/${p.id}` }));
    }
    const passed = result === 'Y';
    const pending = p.pending3ds;
    p.pending3ds = null;
    const code = passed ? decide({ number: pending.number, expiryMonth: p.expiryMonth, expiryYear: p.expiryYear, ...p.request, authenticated: true, now: this.now() }) : '20151';
    const action = this._authorize(p, code);
    const account = this._opts.accounts[p.secretKey];
    void this.track((async () => {
      for (const w of this._authWebhooks(p, action)) await this._webhook(account, w.type, w.p, w.action);
    })());
    const back = new URL(p.approved ? pending.successUrl : pending.failureUrl);
    back.searchParams.set('cko-session-id', `sid_${p.id.slice(4)}`);
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** A payment by the 3-D Secure session id of its redirect (`sid_...`), as `GET /payments/{sid}` finds it. */
  paymentOfSession(sid: string): Readonly<SimPayment> | undefined {
    return this._payments.get(`pay_${sid.replace(/^sid_/, '')}`);
  }

  /** Fresh random bytes for demo keys. */
  static demoKey(): string {
    return randomBytes(24).toString('base64url');
  }
}
