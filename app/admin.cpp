#include "app/admin.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "app/options.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/records.hpp"

namespace netherscope {

namespace po = boost::program_options;

namespace {

constexpr const char* usage_text = R"(usage: netherscope admin [--data-dir DIR] COMMAND [ARGS]

Works on the service's LMDB store; safe while the service runs (LMDB allows several
processes, and every change is one transaction).

commands:
  accounts                 list accounts: user id, login, created, whether a key is active,
                           and this month's usage
  usage [YYYY-MM]          every usage counter of a month (default: this month, UTC)
  issue-key LOGIN|ID       issue a new key for an account (the old one stops working);
                           the key is printed once
  revoke-key LOGIN|ID      revoke the account's active key
  prune-usage YYYY-MM      delete usage counters of months before YYYY-MM (they are only
                           history once their month is over)
  prune [--revoked-days N] delete what has expired: used sign-in states, account page
                           sessions, hourly counters of past hours, and revoked key records
                           older than N days (default 90); the service does the same every
                           10 minutes, this does it at once
)";

struct store {
  std::shared_ptr<storage::env> env;
  MDB_dbi usage = 0;
  MDB_dbi accounts = 0;
  MDB_dbi auth = 0;
};

/// Records one prune transaction deletes at most: each is one write transaction, and the
/// service's writers wait while it runs.
constexpr std::size_t prune_batch = 10000;

std::string date_of(std::int64_t unix_time) {
  auto t = static_cast<time_t>(unix_time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &utc);
  return buf;
}

int fail(const std::string& message) {
  std::cerr << "netherscope admin: " << message << "\n";
  return 1;
}

// Finds an account by numeric id or by login. Digits that are no 64-bit id (too many of
// them) can still be a login, so they are looked up as one rather than refused.
caf::expected<std::optional<storage::account_record>> find(storage::txn& t, const store& s,
                                                           const std::string& who) {
  std::uint64_t id = 0;
  const auto* end = who.data() + who.size();
  const auto [stop, ec] = std::from_chars(who.data(), end, id);
  if (!who.empty() && ec == std::errc{} && stop == end) {
    auto by_id = storage::get_account(t, s.accounts, id);
    if (!by_id || *by_id)
      return by_id;
  }
  return storage::find_by_login(t, s.accounts, who);
}

// Whether text is a month as the usage keys write it, YYYY-MM with a month of 01 to 12; keys
// compare as text, so anything else would select months nobody meant.
bool is_month(std::string_view text) {
  if (text.size() != 7 || text[4] != '-')
    return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6})
    if (text[i] < '0' || text[i] > '9')
      return false;
  const int month = (text[5] - '0') * 10 + (text[6] - '0');
  return month >= 1 && month <= 12;
}

int list_accounts(const store& s) {
  auto t = storage::txn::begin(*s.env, false);
  if (!t)
    return fail(caf::to_string(t.error()));
  auto all = storage::list_accounts(*t, s.accounts);
  if (!all)
    return fail(caf::to_string(all.error()));
  auto month = storage::window_of(std::time(nullptr)).label;
  std::printf("%-12s %-39s %-10s %-4s %8s %8s\n", "user_id", "login", "created", "key",
              "info", "offer");
  for (auto& a : *all) {
    auto used = storage::usage_of(*t, s.usage, a.user_id, month);
    if (!used)
      return fail(caf::to_string(used.error()));
    std::printf("%-12llu %-39s %-10s %-4s %8llu %8llu\n",
                static_cast<unsigned long long>(a.user_id), a.login.c_str(),
                date_of(a.created_unix).c_str(), a.active_key_hash.empty() ? "no" : "yes",
                static_cast<unsigned long long>(used->info),
                static_cast<unsigned long long>(used->offer));
  }
  return 0;
}

int show_usage(const store& s, std::string month) {
  if (month.empty())
    month = storage::window_of(std::time(nullptr)).label;
  if (!is_month(month))
    return fail("usage takes a month as YYYY-MM");
  auto t = storage::txn::begin(*s.env, false);
  if (!t)
    return fail(caf::to_string(t.error()));
  std::printf("%-6s %-4s %-45s %10s\n", "route", "scope", "subject", "calls");
  bool bad = false;
  auto err = t->for_each_prefix(s.usage, "u|", [&](std::string_view key, std::string_view) {
    // u|<endpoint>|<scope>|<subject>|<month>; subjects may contain ':' but never '|'.
    auto last = key.rfind('|');
    if (key.substr(last + 1) != month)
      return true;
    auto first = key.find('|', 2);
    auto second = key.find('|', first + 1);
    auto count = storage::read_count(*t, s.usage, key);
    if (!count) {
      bad = true;
      return false;
    }
    std::printf("%-6s %-4s %-45s %10llu\n", std::string{key.substr(2, first - 2)}.c_str(),
                std::string{key.substr(first + 1, second - first - 1)}.c_str(),
                std::string{key.substr(second + 1, last - second - 1)}.c_str(),
                static_cast<unsigned long long>(*count));
    return true;
  });
  if (err || bad)
    return fail("cannot read usage");
  return 0;
}

int prune_usage(const store& s, const std::string& before) {
  if (!is_month(before))
    return fail("prune-usage takes a month as YYYY-MM");
  if (before > storage::window_of(std::time(nullptr)).label)
    return fail("refusing to delete the counters of the current month");
  auto t = storage::txn::begin(*s.env, true);
  if (!t)
    return fail(caf::to_string(t.error()));
  std::vector<std::string> doomed;
  auto err = t->for_each_prefix(s.usage, "u|", [&](std::string_view key, std::string_view) {
    if (key.substr(key.rfind('|') + 1) < before)
      doomed.emplace_back(key);
    return true;
  });
  if (err)
    return fail(caf::to_string(err));
  for (auto& key : doomed)
    if (auto del = t->del(s.usage, key))
      return fail(caf::to_string(del));
  if (auto commit = t->commit())
    return fail(caf::to_string(commit));
  std::printf("deleted %zu counters of months before %s\n", doomed.size(), before.c_str());
  return 0;
}

int change_key(const store& s, const std::string& who, bool issue) {
  auto t = storage::txn::begin(*s.env, true);
  if (!t)
    return fail(caf::to_string(t.error()));
  auto account = find(*t, s, who);
  if (!account)
    return fail(caf::to_string(account.error()));
  if (!*account)
    return fail("no account '" + who + "' (accounts are created by signing in)");
  if (issue) {
    auto issued = storage::issue_key(*t, s.accounts, (*account)->user_id, (*account)->login,
                                     std::time(nullptr));
    if (!issued)
      return fail(caf::to_string(issued.error()));
    if (auto err = t->commit())
      return fail(caf::to_string(err));
    std::printf("%s\n", issued->key.c_str());
    std::fprintf(stderr, "issued a new key for %s; the previous key no longer works\n",
                 (*account)->login.c_str());
    return 0;
  }
  auto revoked = storage::revoke_active_key(*t, s.accounts, (*account)->user_id,
                                           std::time(nullptr));
  if (!revoked)
    return fail(caf::to_string(revoked.error()));
  if (auto err = t->commit())
    return fail(caf::to_string(err));
  std::printf("%s\n", *revoked ? "revoked" : "no active key");
  return 0;
}

// Prunes in batches until nothing due is left, so a large backlog never becomes one huge
// write transaction.
int prune(const store& s, std::int64_t revoked_days) {
  storage::prune_targets dbs{s.auth, s.accounts, s.usage};
  storage::prune_report total;
  for (;;) {
    auto now = static_cast<std::int64_t>(std::time(nullptr));
    auto t = storage::txn::begin(*s.env, true);
    if (!t)
      return fail(caf::to_string(t.error()));
    auto report = storage::prune_expired(*t, dbs, now, now - revoked_days * 86400, prune_batch);
    if (!report)
      return fail(caf::to_string(report.error()));
    if (auto err = t->commit())
      return fail(caf::to_string(err));
    total.states += report->states;
    total.sessions += report->sessions;
    total.revoked_keys += report->revoked_keys;
    total.counters += report->counters;
    if (!report->more)
      break;
  }
  std::printf("deleted %zu used states, %zu sessions, %zu revoked keys, %zu hourly counters\n",
              total.states, total.sessions, total.revoked_keys, total.counters);
  return 0;
}

} // namespace

int run_admin(int argc, const char* const* argv) {
  const config defaults;
  po::options_description desc;
  desc.add_options()("help", "")(
    "data-dir", po::value<std::string>()->default_value(defaults.data_dir), "")(
    "store-map-size-mb", po::value<unsigned>()->default_value(defaults.store_map_size >> 20),
    "")("revoked-days", po::value<unsigned>(), "")(
    "command", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("command", -1);
  // The store's options come from the environment as they do for the service (the container
  // image sets NETHERSCOPE_DATA_DIR), so both open the same store. The service's other
  // variables are its business: they are neither used nor refused here.
  auto store_option = [](const std::string& variable) -> std::string {
    auto name = option_for_variable(variable);
    return name && (*name == "data-dir" || *name == "store-map-size-mb") ? *name : "";
  };
  po::variables_map vm;
  try {
    // Like main's, this parser skips argv[0], which is "admin" here.
    po::store(po::command_line_parser(argc, argv).options(desc).positional(positional).run(),
              vm);
    po::store(po::parse_environment(desc, store_option), vm);
  } catch (const po::error& e) {
    std::cerr << e.what() << "\n" << usage_text;
    return 2;
  }
  std::vector<std::string> words;
  if (vm.count("command"))
    words = vm["command"].as<std::vector<std::string>>();
  if (vm.count("help") || words.empty()) {
    std::cout << usage_text;
    return vm.count("help") ? 0 : 2;
  }
  storage::env_options options;
  options.map_size = std::size_t{vm["store-map-size-mb"].as<unsigned>()} << 20;
  auto env = storage::env::open(vm["data-dir"].as<std::string>(), options);
  if (!env)
    return fail(caf::to_string(env.error()));
  auto usage = (*env)->open_db("usage");
  auto accounts = (*env)->open_db("accounts");
  auto auth = (*env)->open_db("auth");
  if (!usage || !accounts || !auth)
    return fail("cannot open the store's databases");
  store s{*env, *usage, *accounts, *auth};
  auto& command = words[0];
  if (command == "accounts" && words.size() == 1)
    return list_accounts(s);
  if (command == "usage" && words.size() <= 2)
    return show_usage(s, words.size() == 2 ? words[1] : std::string{});
  if (command == "issue-key" && words.size() == 2)
    return change_key(s, words[1], true);
  if (command == "revoke-key" && words.size() == 2)
    return change_key(s, words[1], false);
  if (command == "prune-usage" && words.size() == 2)
    return prune_usage(s, words[1]);
  if (command == "prune" && words.size() == 1) {
    auto days = vm.count("revoked-days") ? std::int64_t{vm["revoked-days"].as<unsigned>()}
                                         : storage::revoked_key_retention_seconds / 86400;
    return prune(s, days);
  }
  std::cerr << usage_text;
  return 2;
}

} // namespace netherscope
