/**
 * The dashboard API routes of the sign-in and the session: the password, the second factor, sign-out,
 * the password change and reset, two-factor enrolment, and what the session looks at (environment,
 * merchant, language). Every answer that makes a new session sets its cookie.
 */
import { responses } from '../../../platform/http/schemas.js';
import type { Stage } from '../dashboard.domain.js';
import * as S from '../dashboard.schemas.js';
import type { Area } from '../areas/kit.js';
import { caller, setSessionCookie } from './http.js';

const ANY_STAGE: Stage[] = ['PASSWORD_CHANGE', 'TOTP', 'ACTIVE'];

export const area: Area = {
  routes({ app, service, done, dash }) {
    app.post('/session', {
      config: { dashboard: { public: true } },
      schema: { body: S.SignInBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.signIn(req.body, c);
      setSessionCookie(req, reply, token);
      const s = await service.sessions.resolve(token, c);
      return done(await service.sessions.me(s, token));
    });

    app.get('/session', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { response: responses(S.SessionResponse) },
    }, async (req) => done(await service.sessions.me(dash(req), req.dashToken!)));

    app.delete('/session', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { response: responses(S.EmptyResponse) },
    }, async (req, reply) => {
      await service.sessions.signOut(dash(req));
      setSessionCookie(req, reply, null);
      return done({});
    });

    app.post('/session/everywhere', {
      config: { dashboard: {} },
      schema: { response: responses(S.SignedOutResponse) },
    }, async (req, reply) => {
      const n = await service.sessions.signOutEverywhere(dash(req));
      setSessionCookie(req, reply, null);
      return done({ sessions_ended: n });
    });

    app.post('/session/password', {
      config: { dashboard: { stages: ['PASSWORD_CHANGE', 'ACTIVE'] } },
      schema: { body: S.ChangePasswordBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.changePassword(dash(req), req.body, c);
      setSessionCookie(req, reply, token);
      return done(await service.sessions.me(await service.sessions.resolve(token, c), token));
    });

    app.post('/session/totp', {
      config: { dashboard: { stages: ['TOTP'] } },
      schema: { body: S.TotpSignInBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.signInTotp(dash(req), req.body, c);
      setSessionCookie(req, reply, token);
      return done(await service.sessions.me(await service.sessions.resolve(token, c), token));
    });

    app.post('/account/totp/setup', {
      config: { dashboard: {} },
      schema: { response: responses(S.TotpSetupResponse) },
    }, async (req) => done(await service.twoFactor.totpSetup(dash(req))));

    app.post('/account/totp/enable', {
      config: { dashboard: {} },
      schema: { body: S.TotpEnableBody, response: responses(S.RecoveryCodesResponse) },
    }, async (req) => done({ recovery_codes: await service.twoFactor.totpEnable(dash(req), req.body.code) }));

    app.post('/account/totp/disable', {
      config: { dashboard: {} },
      schema: { body: S.TotpDisableBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.twoFactor.totpDisable(dash(req), req.body);
      return done({});
    });

    app.post('/password-reset', {
      config: { dashboard: { public: true } },
      schema: { body: S.ResetRequestBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.sessions.requestReset(req.body.login, caller(req));
      return done({});
    });

    app.post('/password-reset/confirm', {
      config: { dashboard: { public: true } },
      schema: { body: S.ResetConfirmBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.sessions.confirmReset(req.body, caller(req));
      return done({});
    });

    app.put('/session/env', {
      config: { dashboard: {} },
      schema: { body: S.EnvBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.switchEnv(dash(req), req.body.env);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });

    app.put('/session/merchant', {
      config: { dashboard: {} },
      schema: { body: S.MerchantBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.switchMerchant(dash(req), req.body.merchant_uuid);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });

    app.put('/session/language', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { body: S.LanguageBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.setLanguage(dash(req), req.body.language);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });
  },
  docs: {
    'POST /session': { operationId: 'signIn', tag: 'session', summary: 'Sign in', description: 'Username (or e-mail) and password. Sets the session cookie; the answer says which stage the sign-in reached (PASSWORD_CHANGE, TOTP or ACTIVE) and carries the CSRF token. Failed sign-ins lock the user at the address they come from, slow down the addresses a user never signed in from, and lock an address that fails many (429).' },
    'GET /session': { operationId: 'getSession', tag: 'session', summary: 'The signed-in user', description: 'The user, the stage, the CSRF token, the environment and merchant looked at, the merchants the user may switch to, and the permissions of the user\'s group.' },
    'DELETE /session': { operationId: 'signOut', tag: 'session', summary: 'Sign out', description: 'Ends this session and clears the cookie.' },
    'POST /session/everywhere': { operationId: 'signOutEverywhere', tag: 'session', summary: 'Sign out everywhere', description: 'Ends every session of the user, this one included.' },
    'POST /session/password': { operationId: 'changePassword', tag: 'session', summary: 'Change the password', description: 'The current and a new password (at least 12 characters). Required at the first sign-in; a new session replaces this one and the user\'s other sessions end.' },
    'POST /session/totp': { operationId: 'signInSecondFactor', tag: 'session', summary: 'Second step of the sign-in', description: 'A code of the authenticator app, or a recovery code. Wrong codes count toward the user\'s lockout.' },
    'PUT /session/env': { operationId: 'switchEnvironment', tag: 'session', summary: 'Switch environment', description: 'Looks at the user\'s sandbox or production merchant (its D3 twins).' },
    'PUT /session/merchant': { operationId: 'switchMerchant', tag: 'session', summary: 'Switch merchant', description: 'A partner\'s user looks at one of its child merchants (or back at its own).' },
    'PUT /session/language': { operationId: 'setLanguage', tag: 'session', summary: 'Set the language', description: 'ES, EN or PT, kept on the user.' },
    'POST /account/totp/setup': { operationId: 'setUpTwoFactor', tag: 'session', summary: 'Start two-factor enrolment', description: 'A new TOTP secret with its otpauth URI and QR code; not in force until a code proves it.' },
    'POST /account/totp/enable': { operationId: 'enableTwoFactor', tag: 'session', summary: 'Turn two-factor sign-in on', description: 'A code of the app proves the secret; the ten recovery codes are answered this once.' },
    'POST /account/totp/disable': { operationId: 'disableTwoFactor', tag: 'session', summary: 'Turn two-factor sign-in off', description: 'Needs the password and a code (or a recovery code).' },
    'POST /password-reset': { operationId: 'requestPasswordReset', tag: 'session', summary: 'Ask for a password reset link', description: 'E-mails a link (30 minutes, one use) to the user a username or e-mail names. The same answer whether or not the user exists.' },
    'POST /password-reset/confirm': { operationId: 'resetPassword', tag: 'session', summary: 'Set a new password with a reset link', description: 'The token of the link and the new password; every session of the user ends.' },
  },
  tag: { name: 'session', description: 'Sign-in, sessions, two-factor, password reset, environment and merchant' },
};
