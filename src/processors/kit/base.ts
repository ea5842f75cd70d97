/**
 * What every connector class starts from (the connector kit): its name and label, the gateway's
 * dependencies (kit/declaration.ts ConnectorDeps), its provider's HTTP (kit/http.ts) and its operation
 * ledger (kit/ledger.ts), the opened terminal of a request, the keyed fingerprint of a card, and the
 * answers for what most providers do not offer. A connector extends it and writes only its protocol:
 * which messages, in which order, read by its pure mapping.
 */
import type { CardData, TerminalRef, VerifyHolderRequest, VerifyHolderResult } from '../connector.js';
import type { ConnectorDeps } from './declaration.js';
import { ProviderHttp, type SendRequest, type Sent } from './http.js';
import { Ledger, type LedgerDescriptor } from './ledger.js';
import { holderNotOffered, terminalOfRecord, type TerminalRefRecord } from './outcomes.js';

/** What a connector needs of the gateway; tests build connectors without the optional parts. */
export type KitDeps<T> = Pick<ConnectorDeps<T>, 'baseUrl' | 'http' | 'db' | 'terminals' | 'timeoutMs' | 'fingerprint'> & Partial<Pick<ConnectorDeps<T>, 'logger' | 'notificationUrl' | 'publicUrl'>>;

export abstract class ConnectorBase<T, X extends Record<string, unknown> = Record<string, unknown>> {
  readonly name: string;
  /** The provider's name in words. */
  readonly label: string;
  /** The operations this connector recorded. */
  readonly ledger: Ledger<X>;
  protected readonly deps: KitDeps<T>;
  readonly #http: ProviderHttp;

  constructor(deps: KitDeps<T>, o: { name: string; label: string; ledger: LedgerDescriptor; maskPath?: (path: string) => string }) {
    this.name = o.name;
    this.label = o.label;
    this.deps = deps;
    this.#http = new ProviderHttp({ baseUrl: deps.baseUrl, http: deps.http, timeoutMs: deps.timeoutMs, logger: deps.logger, name: o.name, label: o.label, maskPath: o.maskPath });
    this.ledger = new Ledger<X>(o.ledger, deps.db);
  }

  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** Sends a request to the provider (an answer, or no answer). */
  protected send(req: SendRequest): Promise<Sent> {
    return this.#http.send(req);
  }

  /** The opened terminal of a request; throws (a configuration error) when it is not usable. */
  protected terminal(ref: TerminalRef): Promise<T> {
    return this.deps.terminals(ref);
  }

  /**
   * The terminal a recorded operation went through (a notification or lookup finds its key with it), or
   * why it cannot be opened.
   */
  protected async terminalOf(ref: TerminalRef | TerminalRefRecord, serviceType: string): Promise<{ terminal: T } | { problem: string }> {
    try {
      return { terminal: await this.deps.terminals(terminalOfRecord(ref as TerminalRefRecord, serviceType)) };
    } catch (err) {
      return { problem: (err as Error).message };
    }
  }

  /** The keyed fingerprint of a card's number (the ledger never keeps the number). */
  protected fingerprintOf(card: CardData): string {
    return this.deps.fingerprint(card.pan.reveal().replace(/\s+/g, ''));
  }

  /** Most providers do not compare holder names. */
  async verifyHolder(_req: VerifyHolderRequest): Promise<VerifyHolderResult> {
    return holderNotOffered(this.label);
  }
}
