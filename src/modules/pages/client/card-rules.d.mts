/** Types of card-rules.mjs (shared by the server and the payment page). */
export interface Brand {
  id: string;
  name: string;
  pattern: RegExp;
  lengths: number[];
  cvv: number;
  gaps: number[];
}
export type CardErrorKey =
  | 'err.number.required'
  | 'err.number.invalid'
  | 'err.number.incomplete'
  | 'err.expiry.required'
  | 'err.expiry.invalid'
  | 'err.expiry.past'
  | 'err.cvv.required'
  | 'err.cvv.length3'
  | 'err.cvv.length4'
  | 'err.holder.required'
  | 'err.holder.long'
  | 'err.holder.invalid';
export interface Today {
  year: number;
  month: number;
}
export declare const BRANDS: Brand[];
export declare function cardDigits(value: unknown): string;
export declare function detectBrand(digits: string): Brand | null;
export declare function luhnOk(digits: string): boolean;
export declare function checkNumber(value: unknown, partial?: boolean): { digits: string; brand: Brand | null; error: CardErrorKey | null };
export declare function parseExpiry(value: unknown): { month: number; year: number } | null;
export declare function checkExpiry(value: unknown, today: Today, partial?: boolean): { error: CardErrorKey | null; month: number | null; year: number | null };
export declare function cvvLength(brand: Brand | null): number | null;
export declare function checkCvv(value: unknown, brand: Brand | null, partial?: boolean): { error: CardErrorKey | null; length: number | null };
export declare function checkHolder(value: unknown, partial?: boolean): { error: CardErrorKey | null; holder: string };
export interface CardFormErrors {
  holder?: CardErrorKey;
  number?: CardErrorKey;
  expiry?: CardErrorKey;
  cvv?: CardErrorKey;
}
export declare function checkCardForm(
  fields: { holder?: unknown; number?: unknown; expiry?: unknown; cvv?: unknown },
  today: Today,
): { errors: CardFormErrors; card: { holder: string; digits: string; brand: string | null; month: number; year: number } | null };
export declare function formatCardNumber(digits: string): string;
export declare function formatExpiry(value: unknown): string;
