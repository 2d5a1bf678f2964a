// What a NetherNet signalling error number, a Minecraft client codeword, a verdict of
// GET /api/check, a join's outcome, a RakNet status code or an Xbox sign-in error (XErr)
// means, for GET /api/explain/{code}, the reasons of joins and the links in /api/offer errors.
//
// The facts live in core/explanations.json with their sources; CMake embeds that file
// (core/explanations.cpp.in), and it is read once, on first use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::core {

/// The embedded text of core/explanations.json.
extern const char* const explanations_document;

/// The path prefix of the explanations: "/api/explain".
inline constexpr std::string_view explain_route = "/api/explain";

/// Renders the JSON body of GET /api/explain/{code}: {ok: true, code, kind, name, [aliases],
/// meaning, causes, checks, evidence, [note], sources: [{url, what}], [variant]}; nullopt when
/// nothing explains the code. ASCII letters match in any case. Accepted: a decimal signalling
/// error number ("37"; leading zeros are ignored), a codeword ("door"), the name or an alias
/// of a signalling error ("IdentityNotAllowed"), a codeword followed by '-' and up to six
/// digits ("door-83"), whose number comes back as variant, a verdict or RakNet status code
/// as the API writes it ("auth_required", "no_listener"), and an Xbox error in decimal
/// ("2148916233"), in hex with 0x ("0x8015DC09", which finds Xbox errors only) or by its name.
std::optional<std::string> render_explanation(std::string_view code);

/// The meaning of an API code ("ice_failed", "auth_required") as the data file gives it, one
/// or two sentences a reply may carry as its reason; empty when nothing explains the code.
std::string explanation_meaning(std::string_view code);

/// What to check for an API code, as the data file lists it; empty when nothing explains it.
std::vector<std::string> explanation_checks(std::string_view code);

/// An Xbox sign-in error (XErr) in the few words an operator reads when Xbox refuses the
/// linked account.
struct xbox_error_words {
  /// The code in decimal, as Xbox sends it (2148916233 is 0x8015DC09).
  std::uint32_t code = 0;
  /// Microsoft's name ("XO_E_ACCOUNT_CREATION_REQUIRED").
  std::string name;
  /// What it means ("the Xbox account has no profile").
  std::string summary;
  /// What the operator does about it ("sign in once at xbox.com to create one").
  std::string fix;
};

/// The Xbox errors of the data file, in code order.
std::vector<xbox_error_words> xbox_errors();

/// Renders GET /api/explain: {ok: true, codes: [{code, kind, name, href}]}, in the order of
/// the data file.
std::string render_explanation_index();

/// The path of the explanation of a NetherNet signalling error number, "/api/explain/37", or
/// empty when there is none (negative, or a number the data file does not list).
std::string explanation_path(std::int64_t nethernet_error);

/// What is wrong with the embedded data file, one sentence per problem: not JSON, an entry
/// without one of its fields, a source key that does not resolve, two entries claiming the
/// same code, name or alias. Empty when the file is sound; the service then serves it all.
std::vector<std::string> explanation_problems();

} // namespace netherscope::core
