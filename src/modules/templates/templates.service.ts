/** Use cases of page templates (ours: POST|GET|PUT|DELETE /template[s]) and page settings. */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { formatContractDate } from '../../platform/time/format.js';
import {
  DEFAULT_TEMPLATES,
  checkColour,
  checkFrameAncestors,
  checkLogoUrl,
  checkName,
  parseTemplateType,
  type Checked,
  type PageTemplate,
  type TemplateType,
} from './templates.domain.js';
import * as repo from './templates.repo.js';
import { UUID_RE as UUID } from '../../platform/ids.js';

export interface TemplateInput {
  name?: string;
  type?: string;
  logo_url?: string | null;
  button_color?: string | null;
  background_color?: string | null;
  default?: boolean | null;
}


function unwrap<T>(c: Checked<T>): T {
  if ('error' in c) throw badRequest(c.error);
  return c.ok;
}

export function presentTemplate(t: repo.TemplateRow, serverTimezone: string) {
  return {
    uuid: t.id,
    type: t.type,
    name: t.name,
    logo_url: t.logo_url,
    button_color: t.button_color,
    background_color: t.background_color,
    default: t.is_default,
    created: formatContractDate(t.created_at, serverTimezone),
    updated: formatContractDate(t.updated_at, serverTimezone),
  };
}

function toPageTemplate(t: repo.TemplateRow): PageTemplate {
  const base = DEFAULT_TEMPLATES[t.type];
  return {
    id: t.id,
    type: t.type,
    logoUrl: t.logo_url,
    buttonColor: t.button_color ?? base.buttonColor,
    backgroundColor: t.background_color ?? base.backgroundColor,
  };
}

export class TemplatesService {
  constructor(private readonly p: Platform) {}

  // ---- API -------------------------------------------------------------------------------------------

  async create(ctx: RequestContext, input: TemplateInput) {
    const type = parseTemplateType(input.type);
    if (!type) throw badRequest('type must be one of: PAYMENT_CARD, DCC');
    const now = ctx.clock.now();
    const row: repo.TemplateRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      type,
      name: unwrap(checkName(input.name)),
      logo_url: input.logo_url == null ? null : unwrap(checkLogoUrl(input.logo_url)),
      button_color: input.button_color == null ? null : unwrap(checkColour(input.button_color, 'button_color')),
      background_color: input.background_color == null ? null : unwrap(checkColour(input.background_color, 'background_color')),
      is_default: input.default ?? false,
      created_at: now,
      updated_at: now,
    };
    await this.p.database.transaction(async (trx) => {
      if (row.is_default) await repo.clearDefault(trx, row.merchant_id, row.env, row.type, row.id);
      await repo.insertTemplate(trx, row);
    });
    return presentTemplate(row, ctx.timezone);
  }

  async list(ctx: RequestContext, q: { type?: string }) {
    let type: TemplateType | undefined;
    if (q.type !== undefined && q.type !== '') {
      type = parseTemplateType(q.type) ?? undefined;
      if (!type) throw badRequest('type must be one of: PAYMENT_CARD, DCC');
    }
    const rows = await repo.listTemplates(this.p.database.db, ctx.merchant.id, ctx.env, type);
    return rows.map((r) => presentTemplate(r, ctx.timezone));
  }

  async #owned(db: Executor, ctx: RequestContext, id: string, forUpdate = false): Promise<repo.TemplateRow> {
    const t = await repo.findTemplate(db, id, { forUpdate });
    if (!t || t.merchant_id !== ctx.merchant.id || t.env !== ctx.env) throw notFound(`The template ${id} was not found`);
    return t;
  }

  async get(ctx: RequestContext, id: string) {
    return presentTemplate(await this.#owned(this.p.database.db, ctx, id), ctx.timezone);
  }

  async update(ctx: RequestContext, id: string, input: TemplateInput) {
    if (input.type !== undefined && input.type !== null) throw badRequest('type cannot be changed; create a new template');
    return this.p.database.transaction(async (trx) => {
      const t = await this.#owned(trx, ctx, id, true);
      const set: Partial<repo.TemplateRow> = { updated_at: ctx.clock.now() };
      if (input.name !== undefined) set.name = unwrap(checkName(input.name));
      if (input.logo_url !== undefined) set.logo_url = input.logo_url === null ? null : unwrap(checkLogoUrl(input.logo_url));
      if (input.button_color !== undefined) set.button_color = input.button_color === null ? null : unwrap(checkColour(input.button_color, 'button_color'));
      if (input.background_color !== undefined) {
        set.background_color = input.background_color === null ? null : unwrap(checkColour(input.background_color, 'background_color'));
      }
      if (input.default !== undefined && input.default !== null) {
        set.is_default = input.default;
        if (input.default) await repo.clearDefault(trx, t.merchant_id, t.env, t.type, t.id);
      }
      await repo.updateTemplate(trx, t.id, set);
      return presentTemplate({ ...t, ...set }, ctx.timezone);
    });
  }

  async remove(ctx: RequestContext, id: string) {
    return this.p.database.transaction(async (trx) => {
      const t = await this.#owned(trx, ctx, id, true);
      await repo.deleteTemplate(trx, t.id);
      return presentTemplate(t, ctx.timezone);
    });
  }

  async getPageSettings(ctx: RequestContext) {
    const s = await repo.pageSettings(this.p.database.db, ctx.merchant.id);
    return { frame_ancestors: s?.frame_ancestors ?? null };
  }

  async putPageSettings(ctx: RequestContext, input: { frame_ancestors?: unknown }) {
    if (input.frame_ancestors === undefined) throw badRequest('frame_ancestors is required (an array of origins, or null for any origin)');
    const list = unwrap(checkFrameAncestors(input.frame_ancestors));
    await repo.savePageSettings(this.p.database.db, ctx.merchant.id, list, ctx.clock.now());
    return { frame_ancestors: list };
  }

  // ---- for the pages (no request context: the order token is the credential) ---------------------------

  /**
   * The template a page uses: the one the order (or the payment link) names when it is the merchant's,
   * of that type and environment; otherwise the merchant's default of the type; otherwise the built-in
   * default. A page never fails because of a template.
   */
  async forPage(owner: { merchantId: string; env: Env }, type: TemplateType, ...wanted: Array<string | null | undefined>): Promise<PageTemplate> {
    const db = this.p.database.db;
    for (const id of wanted) {
      if (!id || !UUID.test(id)) continue;
      const t = await repo.findTemplate(db, id.toLowerCase());
      if (t && t.merchant_id === owner.merchantId && t.env === owner.env && t.type === type) return toPageTemplate(t);
    }
    const d = await repo.defaultTemplate(db, owner.merchantId, owner.env, type);
    return d ? toPageTemplate(d) : DEFAULT_TEMPLATES[type];
  }

  /** The merchant's frame-ancestors list (null: any origin). */
  async frameAncestors(merchantId: string): Promise<string[] | null> {
    const s = await repo.pageSettings(this.p.database.db, merchantId);
    return s?.frame_ancestors ?? null;
  }
}
