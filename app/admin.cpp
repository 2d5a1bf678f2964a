#include "app/admin.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>
#include <caf/sec.hpp>

#include "app/options.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/records.hpp"

namespace netherscope {

namespace po = boost::program_options;

namespace {

constexpr const char* usage_text = R"(usage: netherscope admin [--data-dir DIR] COMMAND [ARGS]
       netherscope admin --help | --version

Works on the service's LMDB store; safe while the service runs (LMDB allows several
processes, and every change is one transaction). --data-dir and --store-map-size-mb also
come from NETHERSCOPE_DATA_DIR and NETHERSCOPE_STORE_MAP_SIZE_MB, as for the service.
Exit status: 0 done, 1 the store refused or the account is unknown, 2 a bad command line.

commands:
  create-account --login NAME
                           create an account without GitHub sign-in and print its first
                           key, once (only its hash is stored); NAME is 1 to 39 letters,
                           digits or inner hyphens, and no account may have it yet
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

/// A command line that cannot be run: the message and the usage, exit status 2.
int usage_error(const std::string& message) {
  std::cerr << "netherscope admin: " << message << "\n\n" << usage_text;
  return 2;
}

/// Accounts made by create-account get user ids from here up. GitHub's ids are counted from
/// 1 and are far below 2^62, so the two never meet in the one accounts table keyed by id.
constexpr std::uint64_t first_local_user_id = std::uint64_t{1} << 62;

// Whether name is a login as GitHub allows them: 1 to 39 letters, digits and hyphens, not
// starting or ending with one. The same rule keeps operator-made names from looking odd in
// the account page and the admin listings.
bool is_login(std::string_view name) {
  if (name.empty() || name.size() > 39 || name.front() == '-' || name.back() == '-')
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
  });
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

int create_account(const store& s, const std::string& login) {
  auto t = storage::txn::begin(*s.env, true);
  if (!t)
    return fail(caf::to_string(t.error()));
  auto existing = storage::find_by_login(*t, s.accounts, login);
  if (!existing)
    return fail(caf::to_string(existing.error()));
  if (*existing)
    return fail("an account named '" + login + "' exists (user id "
                + std::to_string((*existing)->user_id) + "); issue-key gives it a new key");
  auto all = storage::list_accounts(*t, s.accounts);
  if (!all)
    return fail(caf::to_string(all.error()));
  auto id = first_local_user_id;
  for (const auto& a : *all)
    if (a.user_id >= id)
      id = a.user_id + 1;
  auto made = storage::sign_in(*t, s.accounts, id, login, std::time(nullptr));
  if (!made)
    return fail(caf::to_string(made.error()));
  if (auto err = t->commit())
    return fail(caf::to_string(err));
  // The key on stdout alone, so a script can capture it; the note goes to stderr.
  std::printf("%s\n", made->first_key.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "created account %s (user id %llu); the key above is shown only once\n",
               login.c_str(), static_cast<unsigned long long>(id));
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

// Opens the store the service uses: LMDB under --data-dir. This is the one place admin picks
// a backend, so the Redis store (--store redis://..., NETHERSCOPE_STORE) plugs in here once
// storage/ offers it.
caf::expected<store> open_store(const po::variables_map& vm) {
  storage::env_options options;
  options.map_size = std::size_t{vm["store-map-size-mb"].as<unsigned>()} << 20;
  auto env = storage::env::open(vm["data-dir"].as<std::string>(), options);
  if (!env)
    return env.error();
  auto usage = (*env)->open_db("usage");
  auto accounts = (*env)->open_db("accounts");
  auto auth = (*env)->open_db("auth");
  if (!usage || !accounts || !auth)
    return caf::make_error(caf::sec::runtime_error, "cannot open the store's databases");
  return store{*env, *usage, *accounts, *auth};
}

} // namespace

int run_admin(int argc, const char* const* argv) {
  const config defaults;
  po::options_description desc;
  desc.add_options()("help", "")("version", "")(
    "data-dir", po::value<std::string>()->default_value(defaults.data_dir), "")(
    "store-map-size-mb", po::value<unsigned>()->default_value(defaults.store_map_size >> 20),
    "")("revoked-days", po::value<unsigned>(), "")("login", po::value<std::string>(), "")(
    "command", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("command", -1);
  // The store's options come from the environment as they do for the service (the container
  // image sets NETHERSCOPE_DATA_DIR), so both open the same store. The service's other
  // variables are its business: they are neither used nor refused here. The Redis store's
  // NETHERSCOPE_STORE joins this list when admin learns to open it.
  auto store_option = [](const std::string& variable) -> std::string {
    auto name = option_for_variable(variable);
    return name && (*name == "data-dir" || *name == "store-map-size-mb") ? *name : "";
  };
  po::variables_map vm;
  try {
    // Like main's, this parser skips argv[0], which is "admin" here; names match exactly.
    po::store(po::command_line_parser(argc, argv)
                .options(desc)
                .positional(positional)
                .style(exact_command_line_style())
                .run(),
              vm);
    po::store(po::parse_environment(desc, store_option), vm);
  } catch (const po::error& e) {
    return usage_error(e.what());
  }
  if (vm.count("help")) {
    std::cout << usage_text;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << version_text();
    return 0;
  }
  std::vector<std::string> words;
  if (vm.count("command"))
    words = vm["command"].as<std::vector<std::string>>();
  if (words.empty())
    return usage_error("no command given");
  // The whole command line is checked before the store is opened, so a typo never creates an
  // empty store where none was.
  const auto& command = words[0];
  const auto arguments = words.size() - 1;
  struct shape {
    const char* name;
    std::size_t least;
    std::size_t most;
  };
  constexpr shape shapes[] = {{"create-account", 0, 0}, {"accounts", 0, 0},   {"usage", 0, 1},
                              {"issue-key", 1, 1},      {"revoke-key", 1, 1}, {"prune-usage", 1, 1},
                              {"prune", 0, 0}};
  const auto* known = std::find_if(std::begin(shapes), std::end(shapes),
                                   [&](const shape& k) { return command == k.name; });
  if (known == std::end(shapes))
    return usage_error("unknown command '" + command + "'");
  if (arguments < known->least || arguments > known->most)
    return usage_error(command + " takes " + std::to_string(known->least)
                       + (known->most != known->least ? " or " + std::to_string(known->most) : "")
                       + " argument" + (known->most == 1 ? "" : "s"));
  if (vm.count("login") && command != "create-account")
    return usage_error("--login goes with create-account only");
  if (vm.count("revoked-days") && command != "prune")
    return usage_error("--revoked-days goes with prune only");
  if (command == "create-account") {
    if (!vm.count("login"))
      return usage_error("create-account needs --login NAME");
    if (!is_login(vm["login"].as<std::string>()))
      return usage_error("--login takes 1 to 39 letters, digits or inner hyphens");
  }
  if ((command == "prune-usage" || (command == "usage" && arguments == 1))
      && !is_month(words[1]))
    return usage_error(command + " takes a month as YYYY-MM");

  auto opened = open_store(vm);
  if (!opened)
    return fail(caf::to_string(opened.error()));
  const auto& s = *opened;
  if (command == "create-account")
    return create_account(s, vm["login"].as<std::string>());
  if (command == "accounts")
    return list_accounts(s);
  if (command == "usage")
    return show_usage(s, arguments == 1 ? words[1] : std::string{});
  if (command == "issue-key")
    return change_key(s, words[1], true);
  if (command == "revoke-key")
    return change_key(s, words[1], false);
  if (command == "prune-usage")
    return prune_usage(s, words[1]);
  auto days = vm.count("revoked-days") ? std::int64_t{vm["revoked-days"].as<unsigned>()}
                                       : storage::revoked_key_retention_seconds / 86400;
  return prune(s, days);
}

} // namespace netherscope
