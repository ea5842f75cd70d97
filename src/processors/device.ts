/**
 * Physical devices (payment terminals), the way the gateway talks to them: a device connector gets an
 * operation (a payment or pre-authorization to take) and, some time later, the device reports what it
 * read. Two kinds: the simulated terminal below (sandbox, communication `SIMULATION`) and a real device
 * on a WebSocket (communication `SOCKET`, the devices module's socket hub).
 *
 * What a device reports is processor-neutral card data. Track 2 and PIN blocks travel only in memory:
 * the gateway keeps the BIN and last 4 of the card and nothing else of it.
 */
import { TEST_CARDS } from './simulator.rules.js';

/** An operation as a device receives it. */
export interface DeviceOperation {
  uuid: string;
  kind: 'PAYMENT' | 'PREAUTHORIZATION';
  order_uuid: string;
  amount: number;
  /** ISO 4217 alpha-3. */
  currency: string;
  description: string;
  /** QUEUED or SENT: read a card; AUTHENTICATION_REQUIRED: read it again with `terminal_action`. */
  status?: string;
  /** REQUEST_PIN (again with the PIN) or SWITCH_INTERFACE (again by chip) when the issuer asked for SCA. */
  terminal_action?: string | null;
}

/** What a device answers to an operation. */
export type DeviceReport =
  | {
      kind: 'CARD';
      card: { track2?: string; pan?: string; expiration_date?: string };
      card_reading_method: 'KEY_ENTRY' | 'BAR_CODE' | 'MAGNETIC_STRIPE' | 'ICC' | 'NFC';
      pin?: { block: string; format: number } | null;
    }
  | { kind: 'CANCELLED'; reason: string };

/** The amounts the simulated terminal answers in a fixed way (sandbox rules). */
export const SIMULATED_DEVICE_AMOUNTS = { CANCELLED: 100, REFUSED: 200 } as const;

/**
 * The simulated terminal: what a customer at a real terminal would do, decided by the amount.
 * 100 → the customer cancels on the terminal; 200 → the customer presents a card the issuer refuses;
 * any other amount → an approved card, inserted (chip) with a PIN.
 */
export function simulatedDeviceReport(op: DeviceOperation): DeviceReport {
  if (op.amount === SIMULATED_DEVICE_AMOUNTS.CANCELLED) return { kind: 'CANCELLED', reason: 'The customer cancelled on the terminal' };
  const pan = op.amount === SIMULATED_DEVICE_AMOUNTS.REFUSED ? TEST_CARDS.REFUSED_VISA : TEST_CARDS.APPROVED;
  // a chip read: track 2 equivalent data with an expiry far ahead, and an ISO 9564 format 0 PIN block
  return { kind: 'CARD', card: { track2: `${pan}=4912201000000000` }, card_reading_method: 'ICC', pin: { block: '041234FFFFFFFFFF', format: 0 } };
}
