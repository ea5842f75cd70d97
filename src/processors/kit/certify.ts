/**
 * `paygate connector certify`: what a merchant runs before switching a terminal to live credentials.
 * The terminal's connector is pointed at the provider's test environment (its declared test host, or
 * `--url`) with the terminal's (test) credentials, and the provider's documented flows are run with its
 * own test cards (the declaration's `certification`): the credentials accepted, an approval found again
 * by the provider's query, a partial refund, a decline, a pre-authorization captured in part and one
 * voided, a stored credential's first use and a merchant-initiated payment quoting it, and the 3-D Secure
 * challenge asked for. Each step says whether it passed, what the provider answered and what to fix.
 *
 * Nothing goes through the payments module: no order, notification or charge of the merchant's account
 * is made; the connector's ledger keeps the operations it sent (as any connector call does).
 */
import { randomUUID } from 'node:crypto';
import type { ProcessorResult, PaymentRequest, TerminalRef } from '../connector.js';
import type { CertificationDeclaration, DeclaredConnector } from './declaration.js';
import { secret } from '../../platform/security/secret.js';

export interface CertificationStep {
  step: string;
  passed: boolean;
  /** What the provider answered, in its words as the connector read them. */
  answer: string;
  /** What to do when it did not pass (empty when it did). */
  fix: string;
}

export interface CertificationInput {
  connector: DeclaredConnector<unknown>;
  /** The opened terminal (what `credentials.open` gives). */
  terminal: unknown;
  terminalRef: TerminalRef;
  currency: string;
  certification: CertificationDeclaration;
  /** The provider's name in words. */
  label: string;
  now?: () => Date;
}

const describe = (r: ProcessorResult): string => {
  switch (r.outcome) {
    case 'APPROVED':
      return `approved (authorization ${r.authorization || '-'}, id ${r.processorId})`;
    case 'DECLINED':
      return `declined ${r.error}: ${r.details}`;
    case 'PENDING':
      return `accepted, not decided yet: ${r.details}`;
    case 'CHALLENGE':
      return `asks for 3-D Secure: ${r.details}`;
    case 'UNKNOWN':
      return `no answer: ${r.details}`;
  }
};

/** Runs the certification flows; every step is run (one failing does not stop the others that do not depend on it). */
export async function certify(input: CertificationInput): Promise<CertificationStep[]> {
  const { connector, certification: cert, label } = input;
  const now = input.now ?? (() => new Date());
  const steps: CertificationStep[] = [];
  const add = (step: string, passed: boolean, answer: string, fix: string) => steps.push({ step, passed, answer, fix: passed ? '' : fix });
  const year = now().getUTCFullYear() + 2;
  type Role = 'approved' | 'declined' | 'challenge';
  // the name the provider's test environment reads for the card's role (some decide by it)
  const card = (pan: string, role: Role = 'approved') => ({ pan: secret(pan)!, expiryMonth: 12, expiryYear: year, cvv: secret('123'), holder: cert.holders?.[role] ?? 'Certification Test' });
  const payment = (pan: string, extra: Partial<PaymentRequest> = {}, role: Role = 'approved'): PaymentRequest => ({
    reference: randomUUID(), terminal: input.terminalRef, now: now(), amount: 1000, currency: input.currency, card: card(pan, role), channel: 'ECOMMERCE', customerIp: '192.0.2.10', ...extra,
  });
  const unreachable = `check that ${label}'s test environment is reachable from this machine (the URL, a proxy, PAYGATE_OUTGOING_ALLOW)`;

  // 1. the credentials
  const problems = await connector.testCredentials(input.terminal, input.currency);
  add('credentials', problems.length === 0, problems.length === 0 ? 'accepted' : problems.join('; '), `fix the terminal's test credentials as ${label} shows them (paygate terminal ... or the dashboard's terminal settings), then run this again`);

  // 2. an approval, found again by the provider's query
  const approve = payment(cert.cards.approved);
  const approved = await connector.authorize(approve);
  add('approval', approved.outcome === 'APPROVED', describe(approved), approved.outcome === 'UNKNOWN' ? unreachable : `${label} should approve its test card ${cert.cards.approved.slice(0, 6)}…${cert.cards.approved.slice(-4)} (${cert.source}); check the account's test setup (currency ${input.currency}, the channel or entity the terminal names)`);
  const found = await connector.lookup({ reference: approve.reference, operation: 'authorize', terminal: input.terminalRef });
  const foundOk = found.found === true && found.result.outcome === 'APPROVED';
  add('lookup of a payment', foundOk, found.found === true ? `found: ${describe(found.result)}` : found.found === false ? 'not found' : `could not ask: ${found.details}`, `a payment whose answer is lost is settled by this query: ${label} must find the approved payment by the reference sent with it`);

  // 3. a partial refund of it
  if (approved.outcome === 'APPROVED') {
    const refunded = await connector.refund({ reference: randomUUID(), terminal: input.terminalRef, now: now(), amount: 300, currency: input.currency, original: { reference: approve.reference, processorId: approved.processorId, authorization: approved.authorization } });
    add('partial refund', refunded.outcome === 'APPROVED' || refunded.outcome === 'PENDING', describe(refunded), `${label} refused a partial refund of an approved test payment: check that refunds are enabled on the test account`);
  } else add('partial refund', false, 'not tried: no approved payment to refund', 'fix the approval first');

  // 4. a decline, with the error it maps to
  const declined = await connector.authorize(payment(cert.cards.declined.pan, {}, 'declined'));
  add('decline', declined.outcome === 'DECLINED' && declined.error === cert.cards.declined.error, describe(declined), `${label}'s test card ${cert.cards.declined.pan.slice(0, 6)}…${cert.cards.declined.pan.slice(-4)} should be declined (${cert.cards.declined.error}); ${declined.outcome === 'APPROVED' ? 'it was approved: the test account may not simulate declines' : 'the answer was read another way'}`);

  // 5. a pre-authorization captured in part, and one voided
  const hold = payment(cert.cards.approved, { amount: 1200 });
  const held = await connector.preauthorize(hold);
  if (held.outcome === 'APPROVED') {
    const captured = await connector.capture({ reference: randomUUID(), terminal: input.terminalRef, now: now(), amount: 600, currency: input.currency, original: { reference: hold.reference, processorId: held.processorId, authorization: held.authorization } });
    add('pre-authorization and partial capture', captured.outcome === 'APPROVED' || captured.outcome === 'PENDING', describe(captured), `${label} refused to capture part of an approved pre-authorization: check that deferred capture is enabled on the test account`);
  } else add('pre-authorization and partial capture', false, describe(held), `${label} should approve a pre-authorization of its test card`);
  const hold2 = payment(cert.cards.approved, { amount: 700 });
  const held2 = await connector.preauthorize(hold2);
  if (held2.outcome === 'APPROVED') {
    const voided = await connector.cancel({ reference: randomUUID(), terminal: input.terminalRef, now: now(), amount: 700, currency: input.currency, original: { reference: hold2.reference, processorId: held2.processorId, authorization: held2.authorization } });
    add('pre-authorization and void', voided.outcome === 'APPROVED' || voided.outcome === 'PENDING', describe(voided), `${label} refused to void an approved pre-authorization`);
  } else add('pre-authorization and void', false, describe(held2), `${label} should approve a pre-authorization of its test card`);

  // 6. a stored credential's first use, then a merchant-initiated payment quoting it
  const first = await connector.authorize(payment(cert.cards.approved, { storeCredential: true }));
  add('stored credential: first use', first.outcome === 'APPROVED', describe(first), `${label} should approve the payment that stores the card`);
  if (first.outcome === 'APPROVED') {
    const mit = await connector.authorize(payment(cert.cards.approved, { channel: 'MIT', mit: 'UNSCHEDULED', storedCard: true, cofTxnid: first.cofTxnid ?? null, card: { ...card(cert.cards.approved), cvv: null } }));
    add('stored credential: merchant-initiated payment', mit.outcome === 'APPROVED', describe(mit), `${label} refused a merchant-initiated payment on the stored card: the network reference of the first use must be accepted (check that the test account allows merchant-initiated payments)`);
  } else add('stored credential: merchant-initiated payment', false, 'not tried: no first use approved', 'fix the first use first');

  // 7. the 3-D Secure challenge asked for
  if (cert.cards.challenge) {
    const req = { ...payment(cert.cards.challenge, {}, 'challenge'), preauthorization: false };
    let answer: string;
    let passed: boolean;
    if (connector.threeds) {
      const started = await connector.threeds.start(req, { methodNotification: 'https://certification.invalid/method' });
      if (started.outcome === 'DECLINED' || started.outcome === 'UNKNOWN') {
        passed = false;
        answer = `3-D Secure could not start: ${started.details}`;
      } else {
        const browser = { acceptHeader: 'text/html', userAgent: 'paygate-certify', javaEnabled: false, javascriptEnabled: true, language: 'en-GB', colorDepth: 24, screenHeight: 900, screenWidth: 1440, tz: 0 };
        const r = await connector.threeds.authenticate(req, browser, { challengeNotification: 'https://certification.invalid/cres' }, started.outcome === 'METHOD' ? true : null);
        passed = r.outcome === 'ACS_CHALLENGE';
        answer = r.outcome === 'ACS_CHALLENGE' ? `the challenge is asked for (the cardholder is sent to ${new URL(r.acsUrl).origin})` : `no challenge: ${describe(r.result)}`;
      }
    } else {
      const r = await connector.authorize(req);
      passed = r.outcome === 'CHALLENGE';
      answer = describe(r);
    }
    add('3-D Secure challenge', passed, answer, `${label}'s test card ${cert.cards.challenge.slice(0, 6)}…${cert.cards.challenge.slice(-4)} should ask for the challenge (${cert.source}); check that 3-D Secure is enabled on the test account`);
  }
  return steps;
}
