// Card form rules shared by the server and the payment page: this file is imported by the gateway and
// inlined, as it is, into the page's script. Keep it plain, dependency-free ES2019: no imports, and
// `export` only at the start of top-level declarations (the page build strips it).
// Results are message keys of the page catalogues (err.*), never texts.

export var BRANDS = [
  { id: 'amex', name: 'American Express', pattern: /^3[47]/, lengths: [15], cvv: 4, gaps: [4, 10] },
  { id: 'diners', name: 'Diners Club', pattern: /^3(?:0[0-5]|[689])/, lengths: [14, 16, 19], cvv: 3, gaps: [4, 10] },
  { id: 'jcb', name: 'JCB', pattern: /^(?:2131|1800|35(?:2[89]|[3-8][0-9]))/, lengths: [16, 17, 18, 19], cvv: 3, gaps: [4, 8, 12] },
  { id: 'mir', name: 'Mir', pattern: /^220[0-4]/, lengths: [16, 17, 18, 19], cvv: 3, gaps: [4, 8, 12] },
  { id: 'discover', name: 'Discover', pattern: /^(?:6011|64[4-9]|65)/, lengths: [16, 19], cvv: 3, gaps: [4, 8, 12] },
  { id: 'unionpay', name: 'UnionPay', pattern: /^(?:62|81)/, lengths: [14, 15, 16, 17, 18, 19], cvv: 3, gaps: [4, 8, 12] },
  { id: 'mastercard', name: 'Mastercard', pattern: /^(?:5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)/, lengths: [16], cvv: 3, gaps: [4, 8, 12] },
  { id: 'maestro', name: 'Maestro', pattern: /^(?:493698|50|5[6-9]|6)/, lengths: [12, 13, 14, 15, 16, 17, 18, 19], cvv: 3, gaps: [4, 8, 12] },
  { id: 'visa', name: 'Visa', pattern: /^4/, lengths: [16, 18, 19], cvv: 3, gaps: [4, 8, 12] },
];

/** The digits of a typed value (spaces and dashes between groups are allowed). */
export function cardDigits(value) {
  return String(value == null ? '' : value).replace(/[\s-]/g, '');
}

/** The brand of a (possibly partial) card number, or null. */
export function detectBrand(digits) {
  if (!/^[0-9]+$/.test(digits)) return null;
  for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i].pattern.test(digits)) return BRANDS[i];
  return null;
}

/** Luhn (mod 10) checksum. */
export function luhnOk(digits) {
  if (!/^[0-9]+$/.test(digits)) return false;
  var sum = 0;
  var dbl = false;
  for (var i = digits.length - 1; i >= 0; i--) {
    var d = digits.charCodeAt(i) - 48;
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

/** The lengths a number may have: the brand's, or 12 to 19 for an unknown brand. */
function lengthsOf(brand) {
  return brand ? brand.lengths : [12, 13, 14, 15, 16, 17, 18, 19];
}

/**
 * Checks a card number. `partial` (while typing): only report what is already certainly wrong.
 * Returns { digits, brand, error }.
 */
export function checkNumber(value, partial) {
  var raw = String(value == null ? '' : value);
  var digits = cardDigits(raw);
  var brand = detectBrand(digits);
  if (digits === '') return { digits: digits, brand: null, error: partial ? null : 'err.number.required' };
  if (!/^[0-9]+$/.test(digits)) return { digits: digits, brand: null, error: 'err.number.invalid' };
  var lengths = lengthsOf(brand);
  var max = lengths[lengths.length - 1];
  if (digits.length > max) return { digits: digits, brand: brand, error: 'err.number.invalid' };
  var complete = lengths.indexOf(digits.length) >= 0;
  if (!complete) {
    if (partial) return { digits: digits, brand: brand, error: null };
    return { digits: digits, brand: brand, error: 'err.number.incomplete' };
  }
  if (!luhnOk(digits)) {
    // while typing, a short number that may still grow to a longer valid length is not wrong yet
    // (16 digits is where nearly every card ends, so it is judged there)
    if (partial && digits.length < Math.min(max, 16)) return { digits: digits, brand: brand, error: null };
    return { digits: digits, brand: brand, error: 'err.number.invalid' };
  }
  return { digits: digits, brand: brand, error: null };
}

/** Parses MM/YY, MM / YY, MM/YYYY, MMYY or MM-YY. Returns { month, year } or null. */
export function parseExpiry(value) {
  var v = String(value == null ? '' : value).replace(/\s+/g, '');
  var m = /^([0-9]{1,2})[\/.-]?([0-9]{2}|[0-9]{4})$/.exec(v);
  if (!m) return null;
  if (m[1].length === 1 && v.indexOf('/') < 0 && v.indexOf('-') < 0 && v.indexOf('.') < 0) return null;
  var month = Number(m[1]);
  var year = Number(m[2]);
  if (year < 100) year += 2000;
  if (month < 1 || month > 12) return null;
  return { month: month, year: year };
}

/**
 * Checks an expiry date against `today` ({ year, month }, month 1-12): a card is valid through the last
 * day of its month. `partial`: while typing.
 */
export function checkExpiry(value, today, partial) {
  var v = String(value == null ? '' : value).replace(/\s+/g, '');
  if (v === '') return { error: partial ? null : 'err.expiry.required', month: null, year: null };
  var e = parseExpiry(v);
  if (!e) {
    if (partial && /^[0-9]{0,2}\/?[0-9]{0,1}$/.test(v) && !(v.length >= 2 && Number(v.slice(0, 2)) > 12)) {
      return { error: null, month: null, year: null };
    }
    return { error: 'err.expiry.invalid', month: null, year: null };
  }
  if (e.year < today.year || (e.year === today.year && e.month < today.month)) return { error: 'err.expiry.past', month: e.month, year: e.year };
  if (e.year > today.year + 50) return { error: 'err.expiry.invalid', month: e.month, year: e.year };
  return { error: null, month: e.month, year: e.year };
}

/** The CVV length a brand uses (3, or 4 for American Express); null when the brand is unknown. */
export function cvvLength(brand) {
  return brand ? brand.cvv : null;
}

/** Checks a CVV for a brand. Returns { error, length }. */
export function checkCvv(value, brand, partial) {
  var v = String(value == null ? '' : value).replace(/\s+/g, '');
  var len = cvvLength(brand);
  if (v === '') return { error: partial ? null : 'err.cvv.required', length: len };
  if (!/^[0-9]+$/.test(v)) return { error: len === 4 ? 'err.cvv.length4' : 'err.cvv.length3', length: len };
  if (len === null) {
    if (v.length === 3 || v.length === 4) return { error: null, length: len };
    if (partial && v.length < 3) return { error: null, length: len };
    return { error: 'err.cvv.length3', length: len };
  }
  if (v.length === len) return { error: null, length: len };
  if (partial && v.length < len) return { error: null, length: len };
  return { error: len === 4 ? 'err.cvv.length4' : 'err.cvv.length3', length: len };
}

/** Checks the cardholder's name: 2 to 100 characters, no digits-only names. */
export function checkHolder(value, partial) {
  var v = String(value == null ? '' : value).trim().replace(/\s+/g, ' ');
  if (v === '') return { error: partial ? null : 'err.holder.required', holder: v };
  if (v.length > 100) return { error: 'err.holder.long', holder: v };
  if (!partial && (v.length < 2 || /^[0-9\s]+$/.test(v))) return { error: 'err.holder.invalid', holder: v };
  return { error: null, holder: v };
}

/** Every field of the card form at once (submit). Returns { errors, card } where card is set when valid. */
export function checkCardForm(fields, today) {
  var holder = checkHolder(fields.holder, false);
  var number = checkNumber(fields.number, false);
  var expiry = checkExpiry(fields.expiry, today, false);
  var cvv = checkCvv(fields.cvv, number.brand, false);
  var errors = {};
  if (holder.error) errors.holder = holder.error;
  if (number.error) errors.number = number.error;
  if (expiry.error) errors.expiry = expiry.error;
  if (cvv.error) errors.cvv = cvv.error;
  var ok = !holder.error && !number.error && !expiry.error && !cvv.error;
  return {
    errors: errors,
    card: ok ? { holder: holder.holder, digits: number.digits, brand: number.brand ? number.brand.id : null, month: expiry.month, year: expiry.year } : null,
  };
}

/** Groups the digits as the brand prints them (4-6-5 for American Express, 4-4-4-4 for most). */
export function formatCardNumber(digits) {
  var brand = detectBrand(digits);
  var gaps = brand ? brand.gaps : [4, 8, 12];
  var out = '';
  for (var i = 0; i < digits.length; i++) {
    if (gaps.indexOf(i) >= 0) out += ' ';
    out += digits.charAt(i);
  }
  return out;
}

/** Formats a typed expiry as MM/YY while typing. */
export function formatExpiry(value) {
  var d = String(value == null ? '' : value).replace(/[^0-9]/g, '').slice(0, 4);
  if (d.length === 1 && Number(d) > 1) d = '0' + d;
  if (d.length >= 3) return d.slice(0, 2) + '/' + d.slice(2);
  return d;
}
