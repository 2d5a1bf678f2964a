// The Xbox error codes (XErr) a sign-in can be refused with, in plain words for operators:
// each with its decimal code (as the X-Err header and the XErr body member write it), the name
// Microsoft gives it, what it means and what fixes it (docs/XBOX.md §3.5). The codes and words
// are those of core/explanations.json, where each also has its sources.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/explain.hpp"

namespace netherscope::net::xbox {

/// Every XErr we know, in code order.
const std::vector<core::xbox_error_words>& xerr_table();

/// The entry of code, or null when we do not know it.
const core::xbox_error_words* find_xerr(std::uint32_t code);

/// A sentence naming the code for an operator: "the Xbox account has no profile: sign in once
/// at xbox.com to create one, then link again (XErr 2148916233,
/// XO_E_ACCOUNT_CREATION_REQUIRED)"; for an unknown code, that Xbox refused the account with it.
std::string describe_xerr(std::uint32_t code);

/// Reads an XErr from text: decimal ("2148916233"), or hex with 0x ("0x8015DC09"); 0 when it
/// is neither or does not fit 32 bits.
std::uint32_t parse_xerr(std::string_view text);

} // namespace netherscope::net::xbox
