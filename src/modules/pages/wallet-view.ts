/**
 * The wallet buttons of the customer pages (Google Pay, Apple Pay) and the wallet page of the checkout.
 * Kept apart from views.ts: the card page only places the section this file renders.
 *
 * In the sandbox a button runs the wallet's test mode with no network: the gateway builds a sandbox
 * token for a test card and pays it through B14 (POST /payment/wallet/{token}). In production the
 * wallets' own scripts (Google's pay.js, Apple's ApplePaySession with merchant validation) would be
 * needed on the page: the hosted page does not offer wallets there (see docs/wallets.md).
 */
import { html, safeUrl, trusted, type Html } from './html.js';
import type { OrderSummary, PageChrome } from './views.js';
import { layout } from './views.js';

export interface WalletButton {
  wallet: 'GOOGLE_PAY' | 'APPLE_PAY';
  label: string;
  action: string;
  formNonce: string;
}

const WALLET_CSS = `.wallets{display:grid;gap:10px;margin:0 0 18px}.wallets form{margin:0}.wallets button.wallet{background:#000;color:#fff;border:1px solid #000;margin:0;gap:8px}.wallets .or{display:flex;align-items:center;gap:10px;color:var(--muted);font-size:13px;margin:4px 0 0}.wallets .or::before,.wallets .or::after{content:"";flex:1;border-top:1px solid var(--line)}.wallets .note{font-size:12px;color:var(--muted);margin:0}`;

const MARK: Record<WalletButton['wallet'], Html> = {
  GOOGLE_PAY: trusted('<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true"><path fill="#4285F4" d="M21.6 12.2c0-.7-.1-1.4-.2-2H12v3.8h5.4a4.6 4.6 0 0 1-2 3v2.5h3.2c1.9-1.7 3-4.3 3-7.3z"/><path fill="#34A853" d="M12 22c2.7 0 5-.9 6.6-2.4l-3.2-2.5c-.9.6-2 1-3.4 1-2.6 0-4.8-1.8-5.6-4.1H3.1v2.6A10 10 0 0 0 12 22z"/><path fill="#FBBC05" d="M6.4 14c-.2-.6-.3-1.3-.3-2s.1-1.4.3-2V7.4H3.1a10 10 0 0 0 0 9.2L6.4 14z"/><path fill="#EA4335" d="M12 5.9c1.5 0 2.8.5 3.8 1.5l2.9-2.9A10 10 0 0 0 3.1 7.4L6.4 10c.8-2.3 3-4.1 5.6-4.1z"/></svg>'),
  APPLE_PAY: trusted('<svg width="16" height="18" viewBox="0 0 16 20" aria-hidden="true"><path fill="#fff" d="M13.2 10.6c0-2.4 2-3.6 2.1-3.7a4.5 4.5 0 0 0-3.5-1.9c-1.5-.2-2.9.9-3.7.9-.8 0-1.9-.9-3.2-.8A4.7 4.7 0 0 0 .9 7.5c-1.7 2.9-.4 7.3 1.2 9.7.8 1.2 1.8 2.5 3 2.4 1.2 0 1.7-.8 3.1-.8 1.5 0 1.9.8 3.2.8 1.3 0 2.1-1.2 2.9-2.4a10 10 0 0 0 1.3-2.7 4.2 4.2 0 0 1-2.4-3.9zM10.8 3.4A4.2 4.2 0 0 0 11.8.3a4.3 4.3 0 0 0-2.8 1.4 4 4 0 0 0-1 2.9 3.5 3.5 0 0 0 2.8-1.2z"/></svg>'),
};

/** One form per wallet: its button pays the order with that wallet. */
function buttons(chrome: PageChrome, list: WalletButton[], amount: string): Html {
  const { t } = chrome;
  return html`${list.map(
    (b) => html`<form method="post" action="${safeUrl(b.action)}" data-form="wallet" data-wallet="${b.wallet}"><input type="hidden" name="nonce" value="${b.formNonce}"><button type="submit" class="wallet" id="pg-wallet-${b.wallet.toLowerCase().replace('_', '-')}" aria-label="${t('wallet.pay', { wallet: b.label, amount })}">${MARK[b.wallet]}<span>${b.label}</span></button></form>`,
  )}`;
}

/** The wallet section placed above the card form: the buttons, the sandbox note, "or pay by card". */
export function walletSection(chrome: PageChrome, p: { buttons: WalletButton[]; amount: string }): Html | null {
  if (p.buttons.length === 0) return null;
  const { t } = chrome;
  return html`<style nonce="${chrome.nonce}">${trusted(WALLET_CSS)}</style>
<section class="wallets" aria-label="${t('wallet.section')}">
${buttons(chrome, p.buttons, p.amount)}
${chrome.env === 'sandbox' ? html`<p class="note">${t('wallet.sandbox')}</p>` : ''}
<p class="or">${t('wallet.or')}</p>
</section>`;
}

/** The page of one wallet (the checkout's Google Pay or Apple Pay choice). */
export function walletPage(chrome: PageChrome, p: { summary: OrderSummary; button: WalletButton; notice: 'refused' | null }): string {
  const { t } = chrome;
  const body = html`<style nonce="${chrome.nonce}">${trusted(WALLET_CSS)}</style>
<h1>${t('wallet.title', { wallet: p.button.label })}</h1>
${p.notice === 'refused' ? html`<div class="notice bad" role="alert"><strong>${t('result.refused.title')}.</strong> ${t('result.refused.text')}</div>` : ''}
<section class="wallets">
${buttons(chrome, [p.button], p.summary.amount)}
${chrome.env === 'sandbox' ? html`<p class="note">${t('wallet.sandbox')}</p>` : ''}
</section>`;
  return layout(chrome, { title: t('wallet.title', { wallet: p.button.label }), summary: p.summary, body, script: true });
}
