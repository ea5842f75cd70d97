/** The dashboard API routes of the team: the users (invitations, locks, group and status) and the audit log. */
import { Readable } from 'node:stream';
import { responses } from '../../../platform/http/schemas.js';
import * as S from '../dashboard.schemas.js';
import type { Area } from '../areas/kit.js';
import { csvLine } from './payments.js';

export const area: Area = {
  routes({ app, service, done, dash, opts }) {
    app.get('/users', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { response: responses(S.UsersResponse) },
    }, async (req) => done({ users: await service.team.users(dash(req)) }));

    app.post('/users', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { body: S.InviteBody, response: responses(S.InvitedResponse) },
    }, async (req) => done(await service.team.invite(dash(req), req.body)));

    app.post('/users/:uuid/credentials', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, response: responses(S.CredentialsResponse) },
    }, async (req) => done(await service.team.resendCredentials(dash(req), req.params.uuid)));

    app.post('/users/:uuid/unlock', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.team.unlockUser(dash(req), req.params.uuid);
      return done({});
    });

    app.put('/users/:uuid', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, body: S.UpdateUserBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.team.updateUser(dash(req), req.params.uuid, req.body);
      return done({});
    });

    const presentAudit = (a: { id: string; created_at: Date; user_id: string | null; username: string | null; action: string; target: string | null; details: unknown; ip: string | null; merchant_id: string | null }) => ({
      id: String(a.id), created_at: a.created_at.toISOString(), user_uuid: a.user_id, username: a.username, action: a.action, target: a.target, details: a.details ?? null, ip: a.ip, merchant_uuid: a.merchant_id,
    });

    app.get('/audit', {
      config: { dashboard: { permission: 'audit.read' } },
      schema: { querystring: S.AuditQuery, response: responses(S.AuditResponse) },
    }, async (req) => {
      const limit = req.query.limit ?? 100;
      const rows = await service.team.audit(dash(req), { before: req.query.cursor, limit: limit + 1, user: req.query.user, action: req.query.action });
      const more = rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      return done({ entries: page.map(presentAudit), next_cursor: more ? String(page[page.length - 1].id) : null });
    });

    app.get('/audit/export.csv', {
      config: { dashboard: { permission: 'audit.read' } },
      schema: { querystring: S.AuditQuery },
    }, async (req, reply) => {
      const pages = service.team.eachAudit(dash(req), { user: req.query.user, action: req.query.action });
      async function* lines() {
        yield `${csvLine(['id', 'created_at', 'username', 'user_uuid', 'action', 'target', 'ip', 'merchant_uuid', 'details'])}\r\n`;
        for await (const page of pages) {
          yield page.map((a) => {
            const p = presentAudit(a);
            return `${csvLine([p.id, p.created_at, p.username ?? '', p.user_uuid ?? '', p.action, p.target ?? '', p.ip ?? '', p.merchant_uuid ?? '', p.details === null ? '' : JSON.stringify(p.details)])}\r\n`;
          }).join('');
        }
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="audit-${opts.now().toISOString().slice(0, 10)}.csv"`)
        .send(Readable.from(lines()));
    });
  },
  docs: {
    'GET /users': { operationId: 'listUsers', tag: 'users', summary: 'Dashboard users', description: 'The users of the merchant looked at and its children, each with its sign-in locks and how its invitation was delivered.' },
    'POST /users': { operationId: 'inviteUser', tag: 'users', summary: 'Invite a user', description: 'D3 under the hood. With e-mail configured the generated password goes by e-mail only (its delivery is in GET /users); without it, it is answered here once for the manager to hand over. Audited.' },
    'POST /users/:uuid/credentials': { operationId: 'resendCredentials', tag: 'users', summary: 'Send a user a new one-time password', description: 'For a user who has not chosen a password yet: a new generated password replaces the one before (their sessions end), e-mailed, or answered once without e-mail. Audited.' },
    'POST /users/:uuid/unlock': { operationId: 'unlockUser', tag: 'users', summary: 'Lift a user\'s sign-in locks', description: 'Clears the user\'s locks at every address and the slow-down of new addresses. Audited.' },
    'PUT /users/:uuid': { operationId: 'updateUser', tag: 'users', summary: 'Change a user\'s group or status', description: 'A disabled user\'s sessions end at once. Not one\'s own. Audited.' },
    'GET /audit': { operationId: 'listAudit', tag: 'users', summary: 'The audit log', description: 'Every sign-in and staff action, newest first, paged by `next_cursor`.' },
    'GET /audit/export.csv': { operationId: 'exportAudit', tag: 'users', summary: 'Export the audit log as CSV', description: 'Every entry the filters find, streamed (text/csv).' },
  },
  tag: { name: 'users', description: 'Dashboard users and the audit log' },
};
