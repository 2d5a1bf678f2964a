// The account, as the page sees it: the browser's sign-in session, which the service keeps in
// an HttpOnly cookie that no script can read. The page only asks who is signed in; the key
// itself is shown once, on the server's own /account page, and key changes are that page's
// forms (POST with a form token and an Origin check). So no key is ever typed into, held by,
// or stored by this page.

import { call_api } from './api.js';

/// Where the browser goes to sign in with GitHub.
export const sign_in_url = '/auth/github/login';

/// The server-rendered account page: new key, revoke, sign out.
export const account_page_url = '/account';

/// GET /account/session: {ok, signedIn} and, when signed in, login, keyActive, month and
/// usage. The session cookie goes with it (same origin); not being signed in is a 200.
export function load_session() {
  return call_api('GET', '/account/session');
}
