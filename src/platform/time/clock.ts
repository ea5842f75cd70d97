/**
 * Time. Production reads the real clock. In sandbox each merchant has an offset (moved forward by
 * `/test-clock`), so expiry, retry rules and notification retries can be exercised in seconds.
 * Business code never calls `new Date()` directly: it asks a MerchantClock.
 */

export interface Clock {
  /** Real time now. */
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The time as one merchant sees it. */
export interface MerchantClock {
  now(): Date;
  readonly offsetMs: number;
}

export function merchantClock(clock: Clock, offsetMs: number): MerchantClock {
  return {
    now: () => new Date(clock.now().getTime() + offsetMs),
    offsetMs,
  };
}
