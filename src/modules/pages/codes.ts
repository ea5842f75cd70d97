/**
 * Vouchers drawn as images on the pages: QR codes (PIX, PicPay) and Interleaved 2 of 5 barcodes
 * (Boleto, Lotérica, Pago Fácil, viacash), as inline SVG (no image request, nothing outside the page).
 */
import QRCode from 'qrcode';
import { Html, escapeHtml } from './html.js';

/** A QR code of `text` (error correction M) as an SVG image. */
export function qrSvg(text: string, label: string): Html {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const quiet = 4;
  let d = '';
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) if (qr.modules.get(x, y)) d += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  }
  const size = n + 2 * quiet;
  return new Html(
    `<svg class="qr" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${size} ${size}" width="220" height="220" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`,
  );
}

/** Narrow/wide patterns of the digits in Interleaved 2 of 5. */
const ITF: Record<string, string> = {
  '0': 'nnwwn', '1': 'wnnnw', '2': 'nwnnw', '3': 'wwnnn', '4': 'nnwnw',
  '5': 'wnwnn', '6': 'nwwnn', '7': 'nnnww', '8': 'wnnwn', '9': 'nwnwn',
};

/** The bar widths (narrow 1, wide 3) of an Interleaved 2 of 5 code, bars and spaces alternating from a bar. */
export function itfWidths(digits: string): number[] {
  if (!/^\d*$/.test(digits)) throw new Error('ITF encodes digits only');
  const even = digits.length % 2 === 0 ? digits : `0${digits}`;
  const w = (c: string) => (c === 'w' ? 3 : 1);
  const out = [1, 1, 1, 1]; // start: bar, space, bar, space (narrow)
  for (let i = 0; i < even.length; i += 2) {
    const bars = ITF[even[i]];
    const spaces = ITF[even[i + 1]];
    for (let k = 0; k < 5; k++) out.push(w(bars[k]), w(spaces[k]));
  }
  out.push(3, 1, 1); // stop: wide bar, space, bar
  return out;
}

/** An Interleaved 2 of 5 barcode of `digits` as an SVG image. */
export function barcodeSvg(digits: string, label: string): Html {
  const widths = itfWidths(digits);
  const quiet = 10;
  let x = quiet;
  let d = '';
  widths.forEach((wd, i) => {
    if (i % 2 === 0) d += `M${x} 0h${wd}v50h-${wd}z`;
    x += wd;
  });
  const total = x + quiet;
  return new Html(
    `<svg class="barcode" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${total} 50" width="100%" height="70" preserveAspectRatio="none" shape-rendering="crispEdges"><rect width="${total}" height="50" fill="#fff"/><path d="${d}" fill="#000"/></svg>`,
  );
}
