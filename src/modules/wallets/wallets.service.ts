/**
 * Wallet payments (B14, Google Pay and Apple Pay): the merchants' wallet keys, the roots tokens must
 * chain to, the wallets each service offers, and paying an order with a wallet token. Orders are paid
 * only through the payments module's public interface (`payWallet`).
 *
 * A token is verified and decrypted in memory (googlepay.ts, applepay.ts); its card number, device PAN
 * and cryptogram go to the payment as secrets and are never stored or logged (a Google Pay PAN_ONLY
 * card is kept sealed only while its 3-D Secure challenge is open). The token's id is recorded as used
 * in the transaction that starts the payment, so a replay is refused and changes nothing.
 *
 * The sandbox needs no network: the gateway generates its own wallet roots (sealed by the vault) and
 * each sandbox merchant's keys on first use, and builds test tokens (`POST /sandbox-wallet/token`, the
 * hosted page's sandbox wallet buttons) the way the wallets do (sandbox-wallet.ts).
 */
import { X509Certificate, createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { Secret } from '../../platform/security/secret.js';
import type { WalletAvailability } from '../checkouts/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderResult, PaymentsService } from '../payments/index.js';
import type { ServicesService } from '../services/index.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { certificatePem, pemCertificates } from './asn1.js';
import { merchantIdHashOf, openApplePayToken, publicKeyHashOf, type ApplePayDecrypted } from './applepay.js';
import { openGooglePayToken, type GooglePayDecrypted, type GoogleRootKey } from './googlepay.js';
import {
  generateAppleMerchantCertificate,
  generateAppleRoots,
  generateGoogleMerchantKey,
  generateGoogleRoot,
  privateKeyOf,
  type AppleRootMaterial,
  type GoogleRootMaterial,
} from './sandbox-wallet.js';
import { readAppleRoots, readGoogleRootKeys } from './trust.js';
import { WALLET_LABEL, WalletTokenError, parseFlow, parseMerchantIdentifier, parseRecipientId, parseWallet, replayId, tokenOfPayload, walletEnabled, type Wallet } from './wallets.domain.js';
import * as repo from './wallets.repo.js';
import { sandboxToken, type SandboxToken, type SandboxTokenInput } from './wallets.sandbox.js';

export { SANDBOX_WALLET_CARD, type SandboxTokenInput } from './wallets.sandbox.js';

export type Owner = { merchantId: string; env: Env };

/** The recipient id of sandbox Google Pay keys (the gateway integration model: gatewayMerchantId is the merchant's uuid). */
export const SANDBOX_RECIPIENT_ID = 'gateway:paygate';
/** The Apple Pay merchant identifier of a sandbox merchant. */
export const sandboxMerchantIdentifier = (merchantId: string) => `merchant.paygate.sandbox.${merchantId}`;

/** Sandbox test cards a sandbox token is built with when none is given. */
export interface WalletPayInput {
  order_uuid: string;
  wallet: string;
  payload: unknown;
  customer_ip?: string | null;
  flow?: string | null;
}


const ownerOf = (ctx: RequestContext): Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });
const noLeak = (reason: string) => reason.slice(0, 300);

export class WalletsService {
  readonly #production: { google: GoogleRootKey[]; apple: Buffer[] };
  readonly #sandboxExtra: { google: GoogleRootKey[]; apple: Buffer[] };
  #googleRoot: Promise<GoogleRootMaterial> | null = null;
  #appleRoot: Promise<AppleRootMaterial> | null = null;

  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: PaymentsService; services: ServicesService; merchants: MerchantsService },
  ) {
    const c = p.config;
    this.#production = { google: readGoogleRootKeys('PAYGATE_GOOGLE_PAY_ROOT_KEYS', c.googlePayRootKeys), apple: readAppleRoots('PAYGATE_APPLE_PAY_ROOT_CA', c.applePayRootCa) };
    this.#sandboxExtra = { google: readGoogleRootKeys('PAYGATE_GOOGLE_PAY_SANDBOX_ROOT_KEYS', c.googlePaySandboxRootKeys), apple: readAppleRoots('PAYGATE_APPLE_PAY_SANDBOX_ROOT_CA', c.applePaySandboxRootCa) };
  }

  // ---- roots ---------------------------------------------------------------------------------------------

  /** The sandbox's own root of a wallet, generated once (the first process to store it wins). */
  async #sandboxRoot<T>(wallet: Wallet, make: () => { material: T; publicJson: unknown }): Promise<T> {
    const db = this.p.database.db;
    let row = await repo.findRoot(db, wallet);
    if (!row) {
      const made = make();
      await repo.insertRootIfAbsent(db, {
        wallet,
        material_sealed: this.p.vault.seal(JSON.stringify(made.material), repo.rootAad(wallet)),
        public_json: JSON.stringify(made.publicJson),
        created_at: this.p.clock.now(),
      });
      row = await repo.findRoot(db, wallet);
    }
    return JSON.parse(this.p.vault.open(row!.material_sealed, repo.rootAad(wallet)).reveal()) as T;
  }

  sandboxGoogleRoot(): Promise<GoogleRootMaterial> {
    this.#googleRoot ??= this.#sandboxRoot('GOOGLE_PAY', () => {
      const material = generateGoogleRoot(this.p.clock.now());
      return { material, publicJson: { keys: [material.root] } };
    }).catch((err) => {
      this.#googleRoot = null;
      throw err;
    });
    return this.#googleRoot;
  }

  sandboxAppleRoot(): Promise<AppleRootMaterial> {
    this.#appleRoot ??= this.#sandboxRoot('APPLE_PAY', () => {
      const material = generateAppleRoots(this.p.clock.now());
      return { material, publicJson: { root_certificate: material.rootCertificate } };
    }).catch((err) => {
      this.#appleRoot = null;
      throw err;
    });
    return this.#appleRoot;
  }

  async googleRoots(env: Env): Promise<GoogleRootKey[]> {
    if (env === 'production') return this.#production.google;
    return [(await this.sandboxGoogleRoot()).root, ...this.#sandboxExtra.google];
  }

  async appleRoots(env: Env): Promise<Buffer[]> {
    if (env === 'production') return this.#production.apple;
    return [...pemCertificates((await this.sandboxAppleRoot()).rootCertificate), ...this.#sandboxExtra.apple];
  }

  rootsTrusted(env: Env, wallet: Wallet): boolean {
    if (env === 'sandbox') return true;
    return wallet === 'GOOGLE_PAY' ? this.#production.google.length > 0 : this.#production.apple.length > 0;
  }

  // ---- merchant keys ---------------------------------------------------------------------------------------

  /** A merchant's keys of a wallet; a sandbox merchant without any gets one now. */
  async keys(owner: Owner, wallet: Wallet): Promise<repo.WalletKeyRow[]> {
    const db = this.p.database.db;
    const rows = await repo.keysOf(db, owner, wallet);
    if (rows.length > 0 || owner.env !== 'sandbox') return rows;
    if (wallet === 'GOOGLE_PAY') await this.#insertGoogleKey(owner, SANDBOX_RECIPIENT_ID);
    else {
      const root = await this.sandboxAppleRoot();
      const made = generateAppleMerchantCertificate({ merchantIdentifier: sandboxMerchantIdentifier(owner.merchantId), issuerKey: privateKeyOf(root.rootKey), issuerName: 'paygate sandbox Apple Pay Root CA', now: this.p.clock.now() });
      await this.#insertAppleKey(owner, sandboxMerchantIdentifier(owner.merchantId), made.certificate, made.privateKey, true);
    }
    return repo.keysOf(db, owner, wallet);
  }

  async #insertGoogleKey(owner: Owner, recipientId: string): Promise<repo.WalletKeyRow> {
    const made = generateGoogleMerchantKey();
    const id = randomUUID();
    const row: repo.WalletKeyRow = {
      id,
      merchant_id: owner.merchantId,
      env: owner.env,
      wallet: 'GOOGLE_PAY',
      identifier: recipientId,
      private_key_sealed: this.p.vault.seal(made.privateKey, repo.keyAad(id)),
      public_key: made.publicKey,
      certificate_pem: null,
      generated: true,
      created_at: this.p.clock.now(),
    };
    await repo.insertKey(this.p.database.db, row);
    return row;
  }

  async #insertAppleKey(owner: Owner, merchantIdentifier: string, certificatePem: string, privateKeyPem: string, generated: boolean): Promise<repo.WalletKeyRow> {
    const id = randomUUID();
    const der = pemCertificates(certificatePem)[0];
    const row: repo.WalletKeyRow = {
      id,
      merchant_id: owner.merchantId,
      env: owner.env,
      wallet: 'APPLE_PAY',
      identifier: merchantIdentifier,
      private_key_sealed: this.p.vault.seal(privateKeyPem, repo.keyAad(id)),
      public_key: publicKeyHashOf(der),
      certificate_pem: certificatePem,
      generated,
      created_at: this.p.clock.now(),
    };
    try {
      await repo.insertKey(this.p.database.db, row);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('This payment processing certificate is already configured');
      throw err;
    }
    return row;
  }

  #privateKey(row: repo.WalletKeyRow): KeyObject {
    return createPrivateKey(this.p.vault.open(row.private_key_sealed, repo.keyAad(row.id)).reveal());
  }

  /** `GET /wallets`: the caller's wallet configuration (sandbox keys are made on first use). */
  async configuration(ctx: RequestContext) {
    const owner = ownerOf(ctx);
    const [google, apple, offered] = await Promise.all([
      this.rootsTrusted(owner.env, 'GOOGLE_PAY') ? this.keys(owner, 'GOOGLE_PAY') : repo.keysOf(this.p.database.db, owner, 'GOOGLE_PAY'),
      this.rootsTrusted(owner.env, 'APPLE_PAY') ? this.keys(owner, 'APPLE_PAY') : repo.keysOf(this.p.database.db, owner, 'APPLE_PAY'),
      repo.walletsOfEnabledServices(this.p.database.db, owner),
    ]);
    const enabled = (w: Wallet, keys: unknown[]) => walletEnabled({ rootsTrusted: this.rootsTrusted(owner.env, w), serviceOffers: offered.includes(w), hasKeys: keys.length > 0, sandbox: owner.env === 'sandbox' });
    return {
      google_pay: {
        enabled: enabled('GOOGLE_PAY', google),
        roots_trusted: this.rootsTrusted(owner.env, 'GOOGLE_PAY'),
        gateway_merchant_id: ctx.merchant.id,
        keys: google.map((k) => this.#presentKey(k)),
      },
      apple_pay: {
        enabled: enabled('APPLE_PAY', apple),
        roots_trusted: this.rootsTrusted(owner.env, 'APPLE_PAY'),
        keys: apple.map((k) => this.#presentKey(k)),
      },
      ...(owner.env === 'sandbox'
        ? {
            sandbox_roots: {
              google_pay: { keys: [(await this.sandboxGoogleRoot()).root] },
              apple_pay: { root_certificate: (await this.sandboxAppleRoot()).rootCertificate },
            },
          }
        : {}),
    };
  }

  #presentKey(k: repo.WalletKeyRow) {
    const base = { uuid: k.id, wallet: k.wallet, generated: k.generated, created_at: k.created_at.toISOString() };
    if (k.wallet === 'GOOGLE_PAY') return { ...base, recipient_id: k.identifier, public_key: k.public_key, merchant_identifier: null, public_key_hash: null, certificate: null, expires_at: null };
    const cert = new X509Certificate(k.certificate_pem!);
    return { ...base, recipient_id: null, public_key: null, merchant_identifier: k.identifier, public_key_hash: k.public_key, certificate: k.certificate_pem, expires_at: new Date(cert.validTo).toISOString() };
  }

  /** `POST /wallet/google-pay/key`: a new ECv2 key pair; the public key is registered with Google. */
  async generateGoogleKey(ctx: RequestContext, input: { recipient_id?: string | null }) {
    let recipient: string;
    if (input.recipient_id === undefined || input.recipient_id === null) {
      if (ctx.env === 'production') throw badRequest('recipient_id is required in production: merchant:<your Google merchant id>, or gateway:<the gateway id registered with Google>');
      recipient = SANDBOX_RECIPIENT_ID;
    } else {
      const r = parseRecipientId(input.recipient_id);
      if (!r) throw badRequest('recipient_id must be merchant:<id> or gateway:<id> (letters, digits, dot, dash, underscore)');
      recipient = r;
    }
    const row = await this.#insertGoogleKey(ownerOf(ctx), recipient);
    return this.#presentKey(row);
  }

  /**
   * `POST /wallet/apple-pay/certificate`: imports a payment processing certificate (issued by Apple for
   * the merchant identifier) with its private key (P-256). The key is sealed; the certificate is public.
   */
  async importAppleCertificate(ctx: RequestContext, input: { certificate: string; private_key: Secret<string>; merchant_identifier?: string | null }) {
    const certs = pemCertificates(input.certificate);
    if (certs.length !== 1) throw badRequest('certificate must hold one PEM certificate (the payment processing certificate)');
    let cert: X509Certificate;
    let idHash: Buffer;
    try {
      cert = new X509Certificate(certs[0]);
      idHash = merchantIdHashOf(certs[0]);
    } catch (err) {
      throw badRequest(`certificate: ${(err as Error).message.slice(0, 200)}`);
    }
    if (new Date(cert.validTo).getTime() < ctx.clock.now().getTime()) throw badRequest('certificate has expired');
    let key: KeyObject;
    try {
      key = createPrivateKey(input.private_key.reveal());
    } catch {
      throw badRequest('private_key must be a PEM private key (PKCS#8 or SEC1)');
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw badRequest('private_key must be an EC P-256 key');
    let certSpki: Buffer;
    try {
      certSpki = cert.publicKey.export({ type: 'spki', format: 'der' });
    } catch {
      throw badRequest('certificate: its public key is not supported (an EC P-256 key is expected)');
    }
    const keySpki = createPublicKeyOf(key);
    if (!certSpki.equals(keySpki)) throw badRequest('private_key does not belong to the certificate');
    let identifier: string;
    if (input.merchant_identifier) {
      const id = parseMerchantIdentifier(input.merchant_identifier);
      if (!id) throw badRequest('merchant_identifier is not an Apple Pay merchant identifier');
      if (!createHash('sha256').update(id, 'utf8').digest().equals(idHash)) throw badRequest('merchant_identifier does not match the certificate\'s merchant identifier field');
      identifier = id;
    } else {
      identifier = `sha256:${idHash.toString('hex')}`;
    }
    const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const certPem = certificatePem(certs[0]);
    const row = await this.#insertAppleKey(ownerOf(ctx), identifier, certPem, pkcs8, false);
    return this.#presentKey(row);
  }

  // ---- the wallets of services ------------------------------------------------------------------------------

  async serviceWallets(ctx: RequestContext, serviceUuid: string) {
    const id = serviceUuid.toLowerCase();
    await this.deps.services.getService(ctx, id);
    return { service_uuid: id, wallets: await repo.serviceWallets(this.p.database.db, id) };
  }

  async setServiceWallets(ctx: RequestContext, serviceUuid: string, wallets: string[]) {
    const id = serviceUuid.toLowerCase();
    await this.deps.services.getService(ctx, id);
    const names: Wallet[] = [];
    for (const [i, v] of wallets.entries()) {
      const w = parseWallet(v);
      if (!w) throw badRequest(`wallets[${i}]: ${String(v).slice(0, 40)} is not a wallet (GOOGLE_PAY, APPLE_PAY)`);
      if (!names.includes(w)) names.push(w);
    }
    await this.p.database.transaction((trx) => repo.replaceServiceWallets(trx, id, names, this.p.clock.now()));
    return this.serviceWallets(ctx, id);
  }

  /** The wallets offered for orders through a service (pages): those configured and usable in the environment. */
  async offered(serviceId: string, env: Env): Promise<Wallet[]> {
    const configured = await repo.serviceWallets(this.p.database.db, serviceId);
    return configured.filter((w) => this.rootsTrusted(env, w));
  }

  /** `GET /client/resources`: whether each wallet is offered to the merchant's customers. */
  async availability(owner: Owner): Promise<WalletAvailability> {
    const db = this.p.database.db;
    const [offered, keys] = await Promise.all([repo.walletsOfEnabledServices(db, owner), repo.allKeysOf(db, owner)]);
    const on = (w: Wallet) => walletEnabled({ rootsTrusted: this.rootsTrusted(owner.env, w), serviceOffers: offered.includes(w), hasKeys: keys.some((k) => k.wallet === w), sandbox: owner.env === 'sandbox' });
    return { googlePay: { enabled: on('GOOGLE_PAY') }, applePay: { enabled: on('APPLE_PAY') } };
  }

  // ---- B14 ------------------------------------------------------------------------------------------------

  /** B14: verifies and decrypts the wallet token, then pays the order with its card. */
  async pay(ctx: RequestContext, input: WalletPayInput): Promise<OrderResult> {
    const wallet = parseWallet(input.wallet);
    if (!wallet) throw badRequest('wallet must be GOOGLEPAY or APPLEPAY');
    const flow = parseFlow(input.flow);
    if (!flow) throw badRequest('flow must be APP or WEB');
    const token = tokenOfPayload(wallet, input.payload);
    if ('error' in token) throw badRequest(token.error);
    const owner = ownerOf(ctx);
    const { order } = await this.deps.payments.getOrder(ctx, input.order_uuid);
    const offered = await repo.serviceWallets(this.p.database.db, order.service_uuid);
    if (!offered.includes(wallet)) throw badRequest(`The order's service does not offer ${WALLET_LABEL[wallet]} (PUT /service/{uuid}/wallets)`);
    if (!this.rootsTrusted(owner.env, wallet)) throw badRequest(`${WALLET_LABEL[wallet]} is not configured on this gateway (no trusted root)`);
    const keys = await this.keys(owner, wallet);
    if (keys.length === 0) throw badRequest(`The merchant has no ${WALLET_LABEL[wallet]} key (POST /wallet/${wallet === 'GOOGLE_PAY' ? 'google-pay/key' : 'apple-pay/certificate'})`);
    const now = ctx.clock.now();

    let card: { pan: Secret<string>; expMonth: number; expYear: number };
    let dpan: { cryptogram: string; eci: string | null } | null;
    let tokenId: string;
    try {
      if (wallet === 'GOOGLE_PAY') {
        const g: GooglePayDecrypted = openGooglePayToken(token.ok, {
          rootKeys: await this.googleRoots(owner.env),
          recipientIds: [...new Set(keys.map((k) => k.identifier))],
          privateKeys: keys.map((k) => this.#privateKey(k)),
          now,
        });
        if (g.gatewayMerchantId !== null && g.gatewayMerchantId !== ctx.merchant.id) throw new WalletTokenError('the token was made for another merchant (gatewayMerchantId)');
        card = { pan: new Secret(g.pan), expMonth: g.expirationMonth, expYear: g.expirationYear };
        dpan = g.authMethod === 'CRYPTOGRAM_3DS' ? { cryptogram: g.cryptogram!, eci: g.eciIndicator } : null;
        tokenId = g.messageId;
      } else {
        const a: ApplePayDecrypted = openApplePayToken(token.ok, {
          roots: await this.appleRoots(owner.env),
          merchantKeys: keys.map((k) => ({ certificate: pemCertificates(k.certificate_pem!)[0], privateKey: this.#privateKey(k) })),
          now,
          maxAgeMs: this.p.config.applePayMaxTokenAgeS * 1000,
        });
        if (a.transactionAmount !== order.amount || Number(a.currencyCode) !== Number(order.currency)) {
          throw new WalletTokenError('the amount or currency the customer approved is not the order\'s');
        }
        card = { pan: new Secret(a.pan), expMonth: a.expirationMonth, expYear: a.expirationYear };
        dpan = { cryptogram: a.cryptogram, eci: a.eciIndicator };
        tokenId = a.transactionId;
      }
    } catch (err) {
      if (err instanceof WalletTokenError) throw badRequest(`The ${WALLET_LABEL[wallet]} token was refused: ${noLeak(err.reason)}`);
      throw err;
    }
    const id = replayId(tokenId);
    if (!id) throw badRequest(`The ${WALLET_LABEL[wallet]} token was refused: its id is not valid`);
    const used = () => conflict(`This ${WALLET_LABEL[wallet]} token was already used: each token pays once (ask the customer to pay again)`);
    if (await repo.tokenUsed(this.p.database.db, { ...owner, wallet, tokenId: id })) throw used();
    return this.deps.payments.payWallet(ctx, input.order_uuid, {
      wallet,
      flow,
      card,
      dpan,
      customerIp: input.customer_ip ?? null,
      claim: async (trx, o) => {
        const fresh = await repo.claimToken(trx, { merchant_id: o.merchantId, env: o.env, wallet, token_id: id, order_id: o.id, used_at: this.p.clock.now() });
        if (!fresh) throw used();
      },
    });
  }

  // ---- sandbox tokens ----------------------------------------------------------------------------------------

  /**
   * `POST /sandbox-wallet/token` (sandbox only): a real token for one of the caller's keys, built the
   * way the wallet builds it, signed by the sandbox roots. Pay it with B14.
   */
  sandboxToken(ctx: RequestContext, input: SandboxTokenInput): Promise<SandboxToken> {
    return sandboxToken(
      { keys: (owner, wallet) => this.keys(owner, wallet), googleRoot: () => this.sandboxGoogleRoot(), appleRoot: () => this.sandboxAppleRoot(), order: (c, uuid) => this.deps.payments.getOrder(c, uuid) },
      ctx,
      input,
    );
  }

  /**
   * The hosted page's sandbox wallet button: the wallet's test mode without network. Builds a sandbox
   * token for the test card and pays the order of the page through B14, in the name of the key that
   * created the order.
   */
  async payOnSandboxPage(token: string, walletName: string, customerIp: string | null): Promise<OrderResult> {
    const found = await this.deps.payments.orderByToken(token);
    if (!found || found.row.env !== 'sandbox') throw notFound('The order was not found');
    const ctx = await this.deps.merchants.contextForKey(found.row.key_id);
    const built = await this.sandboxToken(ctx, { wallet: walletName, order_uuid: found.row.id });
    return this.pay(ctx, { order_uuid: found.row.id, wallet: walletName, payload: built.payload, customer_ip: customerIp, flow: 'WEB' });
  }

  registerJobs(): void {
    this.p.jobs.register('wallets.purge', async () => {
      // tokens expire within days (Google Pay messages) or minutes (Apple Pay): a year is far beyond
      await repo.purgeUses(this.p.database.db, new Date(this.p.clock.now().getTime() - 366 * 86400_000));
    });
    this.p.jobs.every('wallets.purge', 86400_000);
  }
}

function createPublicKeyOf(key: KeyObject): Buffer {
  return createPublicKey(key).export({ type: 'spki', format: 'der' });
}
