// The HTML pages of the sign-in flow: the account page with a new key, and the error page.
#pragma once

#include <string>
#include <string_view>

#include "net/api/quota.hpp"

namespace netherscope::net {

/// Escapes text for HTML element content and attribute values.
std::string html_escape(std::string_view text);

/// The account page shown after sign-in: login, the new key (shown once), usage and limits.
std::string render_account_page(const account_view& account);

/// A page saying why sign-in failed and how to try again.
std::string render_signin_error(const failure& error);

} // namespace netherscope::net
