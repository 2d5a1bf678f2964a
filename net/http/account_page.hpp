// The HTML pages of sign-in and of the account page, and the headers every one of them
// carries.
//
// The pages run no script at all and are styled by the page's own stylesheet (/page.css), so
// the Content-Security-Policy needs no 'unsafe-inline'. Forms post back to the same origin
// with the session's token in a hidden field.
#pragma once

#include <string>
#include <string_view>

#include <boost/beast/http/fields.hpp>

#include "core/call.hpp"
#include "net/http/page_frame.hpp"

namespace netherscope::net::http {

/// Where the account page is served: the sign-in sends an existing account there.
inline constexpr std::string_view account_page_path = "/account";

/// A count as the page at / writes it (Intl.NumberFormat 'en'): 20000 is "20,000".
std::string group_digits(std::uint64_t value);

/// A watch's period as the account page says it: "5 minutes", "1 hour", "90 seconds".
std::string period_text(std::uint32_t seconds);

/// A webhook's URL as the account page shows it: scheme, host, port and path, with a query
/// (which often holds the receiver's token) shown as "?…".
std::string webhook_url_shown(std::string_view url);

/// The account page of outcome.account: login, whether a key is active, a key just issued
/// (shown once), usage and limits, the account's watches (outcome.account_watches) with their
/// webhooks and each one's state, and a new webhook's secret (shown once); with the session's
/// form token in account.csrf, the forms to get a new key, revoke the key, sign out, add and
/// stop watches and add and remove webhooks. notice is a sentence shown above the key, if any.
std::string render_account_page(const core::api_outcome& outcome, std::string_view notice = {});

/// A page saying why sign-in failed, with the machine code, and how to try again.
std::string render_signin_error(const core::failure& error);

/// A page saying why an account page request failed, with the machine code.
std::string render_page_error(const core::failure& error);

/// The page after signing out.
std::string render_signed_out_page();

/// The JSON body of GET /account/session, which the page at / reads to show the account:
/// {"ok":true,"signedIn":false} when signed_in is false, else the login, whether a key is
/// active, the month and its usage. Never the form token or a key.
std::string render_session_json(const core::account_view& account, bool signed_in);


} // namespace netherscope::net::http
