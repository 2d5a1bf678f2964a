// The account calls, and nothing else. Today an account is reached with its API key, which
// the page holds in memory only (never in localStorage or a cookie: a key must not outlive
// the tab or be readable by anything but this page). When sign-in opens a server-side
// session, this module is the one to change: the credential becomes the session (sent as
// its cookie) plus the anti-forgery token, and the rest of the page stays as it is.

import { call_api } from './api.js';

/// Where the browser goes to sign in with GitHub.
export const sign_in_url = '/auth/github/login';

/// A credential for the account calls, made from an API key.
export function key_credential(key) {
  return { headers: { 'X-API-Key': key } };
}

/// The headers a check (status or offer) sends so that it counts against the account.
export function check_headers(credential) {
  return credential ? { ...credential.headers } : {};
}

/// GET /api/account: login, this month's usage and the limits.
export function load_account(credential) {
  return call_api('GET', '/api/account', { headers: credential.headers });
}

/// POST /api/account/key: a new key replaces the current one; the reply carries it once.
export function issue_new_key(credential) {
  return call_api('POST', '/api/account/key', { headers: credential.headers });
}

/// DELETE /api/account/key: the current key stops working.
export function revoke_key(credential) {
  return call_api('DELETE', '/api/account/key', { headers: credential.headers });
}
