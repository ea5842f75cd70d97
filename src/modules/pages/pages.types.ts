/** The order as the customer pages see it, the purposes of their form nonces and what a form post leads to. */
import type { Env } from '../../platform/db/schema.js';
import { type Currency } from '../../platform/money/currency.js';
import type { OrderStatus, PaymentsService } from '../payments/index.js';
import { type CardFormErrors } from './card.domain.js';
import { type Checkout, type Destination, type PageView } from './pages.domain.js';
import { type Wallet } from '../wallets/index.js';
import type { ApmView } from './views.js';

export type ByToken = NonNullable<Awaited<ReturnType<PaymentsService['orderByToken']>>>;

/** An order as the pages see it. */
export interface PageOrder {
  token: string;
  id: string;
  env: Env;
  merchantId: string;
  merchantName: string;
  serviceId: string;
  /** The order's processor runs EMV 3-D Secure itself (the 3DS page runs its steps). */
  acquirerThreeds: boolean;
  status: OrderStatus;
  operative: string;
  amount: number;
  currency: Currency;
  description: string | null;
  urlOk: string | null;
  urlKo: string | null;
  templateId: string | null;
  dccTemplateId: string | null;
  extraData: unknown;
  /** The order's checkout (extra_data.checkout over the stored checkout it names), or null. */
  checkout: Checkout | null;
  sourceId: string | null;
  expiresAt: Date;
  /** Now on the merchant's clock. */
  now: Date;
  failedAttempts: number;
  bizum: boolean;
  /** Methods the order's service can take, in the reference names (PAYMENT_CARD, BIZUM, ...). */
  serviceMethods: string[];
  /** The APMs the order's service offers (the hosted page's `?apm=`). */
  apms: ApmView[];
  /** The wallets the page offers (sandbox: the wallet's test mode; none in production, docs/wallets.md). */
  wallets: Wallet[];
  view: PageView;
}

/** How long a rendered form can be posted (real time). */
export const FORM_TTL_MS = 2 * 3600_000;
/** How long a repeated post waits for the first one to finish. */
export const DUPLICATE_WAIT_MS = 15_000;

export type FormPurpose = 'card' | 'acs' | 'bizum' | 'card-form' | 'apm' | 'sandbox-apm' | 'wallet' | 'dcc' | 'threeds';

export type SubmitOutcome =
  | { kind: 'redirect'; destination: Destination }
  | { kind: 'invalid'; errors: CardFormErrors; values: { holder: string; expiry: string } }
  | { kind: 'invalid-phone'; phone: string }
  | { kind: 'duplicate'; location: string | null }
  /** Somewhere that is not a Destination (an APM provider's page). */
  | { kind: 'goto'; location: string }
  | { kind: 'invalid-apm-phone'; phone: string }
  | { kind: 'state' }
  | { kind: 'error'; status: number };

