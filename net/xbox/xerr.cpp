#include "net/xbox/xerr.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace netherscope::net::xbox {

namespace {

constexpr std::string_view fix_at_xbox = "sign in at xbox.com with the account and do what it asks";
constexpr std::string_view fix_other_account = "link another account (admin xbox-login)";
constexpr std::string_view fix_retry =
  "netherscope renews the tokens on its next try; if this repeats, check the host's clock and "
  "link again";

} // namespace

const std::vector<xerr_info>& xerr_table() {
  static const std::vector<xerr_info> table{
    {2148916227, "XO_E_ENFORCEMENT_BAN", "the Xbox account is banned by Xbox enforcement",
     "see enforcement.xbox.com, or link another account"},
    {2148916228, "XO_E_THIRD_PARTY_BAN", "the Xbox account is banned from this title",
     fix_other_account},
    {2148916229, "XO_E_ACCOUNT_PARENTALLY_RESTRICTED",
     "a parent or guardian has turned off online play for the account",
     "allow online play in the account's family settings (account.microsoft.com/family), or "
     "link an adult account"},
    {2148916233, "XO_E_ACCOUNT_CREATION_REQUIRED", "the Xbox account has no profile",
     "sign in once at xbox.com to create one, then link again"},
    {2148916234, "XO_E_ACCOUNT_TERMS_OF_USE_NOT_ACCEPTED",
     "the account has not accepted the Xbox terms of use",
     "sign in at xbox.com and accept them"},
    {2148916235, "XO_E_ACCOUNT_COUNTRY_NOT_AUTHORIZED",
     "Xbox Live is not available in the account's country or region", fix_other_account},
    {2148916236, "XO_E_ACCOUNT_AGE_VERIFICATION_REQUIRED",
     "the account must prove its age (a South Korean requirement)",
     "verify the age at xbox.com"},
    {2148916237, "XO_E_ACCOUNT_CURFEW", "the account's play-time limit is reached",
     "change the limit in the account's family settings, or wait until it allows play"},
    {2148916238, "XO_E_ACCOUNT_CHILD_NOT_IN_FAMILY",
     "the account belongs to someone under 18 who is not in a Microsoft family",
     "an adult adds it to a family at account.microsoft.com/family, or link an adult account"},
    {2148916239, "XO_E_ACCOUNT_CSV_TRANSITION_REQUIRED",
     "the account must finish a transition Xbox asks for", fix_at_xbox},
    {2148916240, "XO_E_ACCOUNT_MAINTENANCE_REQUIRED", "the account needs maintenance",
     fix_at_xbox},
    {2148916241, "XO_E_ACCOUNT_TYPE_NOT_ALLOWED",
     "this kind of account may not sign in to Xbox Live", fix_other_account},
    {2148916242, "XO_E_CONTENT_ISOLATION",
     "the sign-in asked for a sandbox the account may not use",
     "report it: netherscope signs in to the RETAIL sandbox only"},
    {2148916243, "XO_E_ACCOUNT_NAME_CHANGE_REQUIRED", "the account's gamertag must be changed",
     "change it at xbox.com"},
    {2148916244, "XO_E_DEVICE_CHALLENGE_REQUIRED", "Xbox wants to challenge this device",
     "link again; if it repeats, sign in at xbox.com from a browser first"},
    {2148916246, "XO_E_SIGNIN_COUNT_BY_DEVICE_TYPE_EXCEEDED",
     "too many devices of this type are signed in to the account",
     "sign other devices out at account.microsoft.com/devices, then link again"},
    {2148916247, "XO_E_PIN_CHALLENGE_REQUIRED", "Xbox asks for the account's PIN",
     fix_at_xbox},
    {2148916248, "XO_E_RETAIL_ACCOUNT_NOT_ALLOWED",
     "a retail account may not use this sandbox",
     "report it: netherscope signs in to the RETAIL sandbox only"},
    {2148916249, "XO_E_SANDBOX_NOT_ALLOWED", "the account may not use this sandbox",
     "report it: netherscope signs in to the RETAIL sandbox only"},
    {2148916254, "XO_E_DEVICE_COUNT_FOR_TITLE_EXCEEDED",
     "the account is signed in to this title on another device",
     "sign the account out of Minecraft elsewhere, or link a dedicated account"},
    {2148916256, "XO_E_EXPIRED_DEVICE_TOKEN", "the device token had expired", fix_retry},
    {2148916257, "XO_E_EXPIRED_TITLE_TOKEN", "the title token had expired", fix_retry},
    {2148916258, "XO_E_EXPIRED_USER_TOKEN", "the user token had expired", fix_retry},
    {2148916259, "XO_E_INVALID_DEVICE_TOKEN", "the device token was not accepted", fix_retry},
    {2148916260, "XO_E_INVALID_TITLE_TOKEN", "the title token was not accepted", fix_retry},
    {2148916261, "XO_E_INVALID_USER_TOKEN", "the user token was not accepted", fix_retry},
  };
  return table;
}

const xerr_info* find_xerr(std::uint32_t code) {
  const auto& table = xerr_table();
  auto it = std::lower_bound(table.begin(), table.end(), code,
                             [](const xerr_info& e, std::uint32_t c) { return e.code < c; });
  return it != table.end() && it->code == code ? &*it : nullptr;
}

std::string describe_xerr(std::uint32_t code) {
  auto number = std::to_string(code);
  const auto* info = find_xerr(code);
  if (info == nullptr)
    return "Xbox refused the account with an error netherscope does not know (XErr " + number
           + "); sign in at xbox.com with the account to see why";
  return std::string{info->meaning} + ": " + std::string{info->fix} + " (XErr " + number + ", "
         + std::string{info->name} + ")";
}

std::uint32_t parse_xerr(std::string_view text) {
  text = base::trim(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 10)
    return 0;
  std::uint64_t value = 0;
  for (char c : text) {
    int digit = -1;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    if (digit < 0)
      return 0;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  return value > 0xFFFFFFFFu ? 0 : static_cast<std::uint32_t>(value);
}

} // namespace netherscope::net::xbox
