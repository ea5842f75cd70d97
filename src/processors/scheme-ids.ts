/**
 * Scheme transaction ids as the acquirers' simulators give them: the 15-digit reference of a card's
 * first payment that later merchant-initiated payments quote (Redsys `Ds_Merchant_Cof_Txnid`,
 * Checkout.com `scheme_id`, PayPal `network_transaction_reference`). About 1.5% of random 15-digit
 * numbers are card numbers by the gateway's definition (Luhn-valid, in a brand's ranges, of its length:
 * Maestro, American Express); such a value is drawn again, so what a simulator answers never looks like
 * a card number in a table, a log or a request the gateway reads.
 */
import { randomInt } from 'node:crypto';
import { isCardNumber } from '../platform/security/card-numbers.js';

/** A new 15-digit scheme transaction id; `draw` gives candidates (a parameter for tests). */
export function schemeTransactionId(draw: () => string = () => String(randomInt(100_000_000, 1_000_000_000)) + String(randomInt(100_000, 1_000_000))): string {
  for (;;) {
    const id = draw();
    if (!isCardNumber(id)) return id;
  }
}
