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
#include "app/secrets_key.hpp"
#include "app/xbox_admin.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/open.hpp"
#include "storage/records.hpp"
#include "storage/redis_url.hpp"

namespace netherscope::app {

namespace po = boost::program_options;

namespace {

constexpr const char* usage_text = R"(usage: netherscope admin [--data-dir DIR | --store redis://...]
                         [--secrets-key-file FILE] [--xbox-endpoints FILE] COMMAND [ARGS]
       netherscope admin --help | --version

Works on the service's store: LMDB under --data-dir, or Redis when --store names it, as
for the service. Safe while the service runs: every change is one transaction (on Redis
one MULTI/EXEC, run again if a replica changed the accounts meanwhile). --data-dir,
--store, --store-map-size-mb and --store-min-replicas (as for the service) also come from
NETHERSCOPE_DATA_DIR, NETHERSCOPE_STORE, NETHERSCOPE_STORE_MAP_SIZE_MB and
NETHERSCOPE_STORE_MIN_REPLICAS, and --secrets-key-file from NETHERSCOPE_SECRETS_KEY_FILE.
Without --secrets-key-file the embedded store's key is DIR/secrets.key, as the service's is;
on Redis the key must be given. --xbox-endpoints maps the Xbox chain's hosts to other base URLs (docs/XBOX.md). Exit status: 0 done, 1 the store refused or the account is
unknown, 2 a bad command line.

commands:
  create-account --login NAME
                           create an account without GitHub sign-in and print its first
                           key, once (only its hash is stored); NAME is 1 to 39 letters,
                           digits or inner hyphens, and no account may have it yet
  accounts                 list accounts: user id, login, created, whether a key is active,
                           and this month's usage
  usage [YYYY-MM]          every usage counter of a month (default: this month, UTC);
                           LMDB only (on Redis: redis-cli --scan --pattern 'ns1:u:*')
  issue-key LOGIN|ID       issue a new key for an account (the old one stops working);
                           the key is printed once
  revoke-key LOGIN|ID      revoke the account's active key
  prune-usage YYYY-MM      delete usage counters of months before YYYY-MM (they are only
                           history once their month is over); LMDB only, Redis counters
                           expire with their month
  prune [--revoked-days N] delete what has expired: used sign-in states, account page
                           sessions, hourly counters of past hours, and revoked key records
                           older than N days (default 90); the service does the same every
                           10 minutes, this does it at once
  xbox-login               link the Xbox account the service's checks sign in as: prints a
                           URL and a code to approve at Microsoft, then runs the whole
                           chain once and stores the link sealed with the secrets key
                           (made in DIR on the embedded store when missing);
                           one account per deployment
  xbox-status              whether an account is linked, whether the key opens it, and
                           whether the chain works with it now (its gamertag, or the step
                           that fails and the fix); exit status 0 only when it works
  xbox-logout              remove the link; checks go back to the self-signed identity
)";

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
caf::expected<std::optional<storage::account_record>> find(storage::record_txn& t,
                                                           const std::string& who) {
  std::uint64_t id = 0;
  const auto* end = who.data() + who.size();
  const auto [stop, ec] = std::from_chars(who.data(), end, id);
  if (!who.empty() && ec == std::errc{} && stop == end) {
    auto by_id = storage::get_account(t, id);
    if (!by_id || *by_id)
      return by_id;
  }
  return storage::find_by_login(t, who);
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

int list_accounts(const storage::opened& s) {
  std::vector<storage::account_record> all;
  auto err = s.store->with_records(false, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto listed = storage::list_accounts(t);
    if (!listed)
      return listed.error();
    all = std::move(*listed);
    return true;
  });
  if (err)
    return admin_fail(caf::to_string(err));
  auto month = storage::window_of(std::time(nullptr)).label;
  std::printf("%-12s %-39s %-10s %-4s %8s %8s\n", "user_id", "login", "created", "key",
              "info", "offer");
  for (auto& a : all) {
    auto used = storage::usage_of(*s.store, a.user_id, month);
    if (!used)
      return admin_fail(caf::to_string(used.error()));
    std::printf("%-12llu %-39s %-10s %-4s %8llu %8llu\n",
                static_cast<unsigned long long>(a.user_id), a.login.c_str(),
                date_of(a.created_unix).c_str(), a.active_key_hash.empty() ? "no" : "yes",
                static_cast<unsigned long long>(used->info),
                static_cast<unsigned long long>(used->offer));
  }
  return 0;
}

int show_usage(const storage::opened& s, std::string month) {
  if (month.empty())
    month = storage::window_of(std::time(nullptr)).label;
  if (!is_month(month))
    return admin_fail("usage takes a month as YYYY-MM");
  if (!s.archive)
    return admin_fail("usage lists the LMDB store's counters; on Redis they are the keys ns1:u:*");
  auto counters = s.archive->counters_of(month);
  if (!counters)
    return admin_fail("cannot read usage: " + storage::message_of(counters.error()));
  std::printf("%-6s %-4s %-45s %10s\n", "route", "scope", "subject", "calls");
  for (auto& c : *counters)
    std::printf("%-6s %-4s %-45s %10llu\n", c.endpoint.c_str(), c.scope.c_str(),
                c.subject.c_str(), static_cast<unsigned long long>(c.count));
  return 0;
}

int prune_usage(const storage::opened& s, const std::string& before) {
  if (!is_month(before))
    return admin_fail("prune-usage takes a month as YYYY-MM");
  if (before > storage::window_of(std::time(nullptr)).label)
    return admin_fail("refusing to delete the counters of the current month");
  if (!s.archive)
    return admin_fail("counters on Redis expire with their month; nothing to prune");
  auto pruned = s.archive->prune_counters_before(before);
  if (!pruned)
    return admin_fail(caf::to_string(pruned.error()));
  std::printf("deleted %zu counters of months before %s\n", *pruned, before.c_str());
  return 0;
}

int create_account(const storage::opened& s, const std::string& login) {
  std::string refused;
  storage::signed_in made;
  std::uint64_t id = first_local_user_id;
  auto err = s.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    refused.clear();
    auto existing = storage::find_by_login(t, login);
    if (!existing)
      return existing.error();
    if (*existing) {
      refused = "an account named '" + login + "' exists (user id "
                + std::to_string((*existing)->user_id) + "); issue-key gives it a new key";
      return false;
    }
    auto all = storage::list_accounts(t);
    if (!all)
      return all.error();
    id = first_local_user_id;
    for (const auto& a : *all)
      if (a.user_id >= id)
        id = a.user_id + 1;
    auto signed_in = storage::sign_in(t, id, login, std::time(nullptr));
    if (!signed_in)
      return signed_in.error();
    made = std::move(*signed_in);
    return true;
  });
  if (err)
    return admin_fail(caf::to_string(err));
  if (!refused.empty())
    return admin_fail(refused);
  // The key on stdout alone, so a script can capture it; the note goes to stderr.
  std::printf("%s\n", made.first_key.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "created account %s (user id %llu); the key above is shown only once\n",
               login.c_str(), static_cast<unsigned long long>(id));
  return 0;
}

int change_key(const storage::opened& s, const std::string& who, bool issue) {
  bool found = false;
  std::string login;
  std::string key;
  bool revoked = false;
  auto err = s.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto account = find(t, who);
    if (!account)
      return account.error();
    found = account->has_value();
    if (!found)
      return false;
    login = (*account)->login;
    if (issue) {
      auto issued = storage::issue_key(t, (*account)->user_id, login, std::time(nullptr));
      if (!issued)
        return issued.error();
      key = std::move(issued->key);
      return true;
    }
    auto done = storage::revoke_active_key(t, (*account)->user_id, std::time(nullptr));
    if (!done)
      return done.error();
    revoked = *done;
    return true;
  });
  if (err)
    return admin_fail(caf::to_string(err));
  if (!found)
    return admin_fail("no account '" + who + "' (accounts are created by signing in)");
  if (issue) {
    std::printf("%s\n", key.c_str());
    std::fprintf(stderr, "issued a new key for %s; the previous key no longer works\n",
                 login.c_str());
    return 0;
  }
  std::printf("%s\n", revoked ? "revoked" : "no active key");
  return 0;
}

// Prunes in batches until nothing due is left, so a large backlog never becomes one huge
// write transaction.
int prune(const storage::opened& s, std::int64_t revoked_days) {
  storage::prune_report total;
  for (;;) {
    auto now = static_cast<std::int64_t>(std::time(nullptr));
    storage::prune_report report;
    auto err = s.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
      auto pruned = storage::prune_expired(t, now, now - revoked_days * 86400, prune_batch);
      if (!pruned)
        return pruned.error();
      report = *pruned;
      return true;
    });
    if (err)
      return admin_fail(caf::to_string(err));
    total.states += report.states;
    total.sessions += report.sessions;
    total.revoked_keys += report.revoked_keys;
    total.counters += report.counters;
    if (!report.more)
      break;
  }
  std::printf("deleted %zu used states, %zu sessions, %zu revoked keys, %zu hourly counters\n",
              total.states, total.sessions, total.revoked_keys, total.counters);
  return 0;
}

// Opens the store the service uses: Redis when --store names it, else LMDB under --data-dir,
// which must exist. The store is asked once, so one that does not answer (a Redis that is
// down) fails here, before any command runs.
caf::expected<storage::opened> open_store(const po::variables_map& vm) {
  storage::open_options options;
  options.data_dir = vm["data-dir"].as<std::string>();
  if (vm.count("store"))
    options.url = vm["store"].as<std::string>();
  options.create_data_dir = false;
  options.map_size = std::size_t{vm["store-map-size-mb"].as<unsigned>()} << 20;
  options.redis_connections = 1;
  if (vm.count("store-min-replicas"))
    options.min_replicas = vm["store-min-replicas"].as<unsigned>();
  auto opened = storage::open(options);
  if (!opened)
    return opened.error();
  if (auto err = opened->store->ping())
    return err;
  return opened;
}

} // namespace

int admin_fail(const std::string& message) {
  std::cerr << "netherscope admin: " << message << "\n";
  return 1;
}

int run_admin(int argc, const char* const* argv) {
  const config defaults;
  po::options_description desc;
  desc.add_options()("help", "")("version", "")(
    "data-dir", po::value<std::string>()->default_value(defaults.data_dir), "")(
    "store", po::value<std::string>(), "")("store-min-replicas", po::value<unsigned>(), "")(
    "store-map-size-mb", po::value<unsigned>()->default_value(defaults.store_map_size >> 20),
    "")("secrets-key-file", po::value<std::string>(), "")(
    "xbox-endpoints", po::value<std::string>(), "")("revoked-days", po::value<unsigned>(), "")("login", po::value<std::string>(), "")(
    "command", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("command", -1);
  // The store's options come from the environment as they do for the service (the container
  // image sets NETHERSCOPE_DATA_DIR), so both open the same store. The service's other
  // variables are its business: they are neither used nor refused here.
  auto store_option = [](const std::string& variable) -> std::string {
    auto name = option_for_variable(variable);
    return name
               && (*name == "data-dir" || *name == "store" || *name == "store-map-size-mb"
                   || *name == "store-min-replicas" || *name == "secrets-key-file")
             ? *name
             : "";
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
                              {"prune", 0, 0},          {"xbox-login", 0, 0}, {"xbox-status", 0, 0},
                              {"xbox-logout", 0, 0}};
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
  const bool xbox_command = command.rfind("xbox-", 0) == 0;
  if (vm.count("xbox-endpoints") && !xbox_command)
    return usage_error("--xbox-endpoints goes with the xbox- commands only");
  xbox_admin_settings xbox;
  if (xbox_command && command != "xbox-logout") {
    if (vm.count("xbox-endpoints")) {
      std::string problem;
      auto endpoints = net::xbox::load_endpoints(vm["xbox-endpoints"].as<std::string>(), problem);
      if (!endpoints)
        return usage_error("--xbox-endpoints: " + problem);
      xbox.endpoints = std::move(*endpoints);
    }
    // The key the service reads: the one given, else the embedded store's own, made by
    // xbox-login on a data directory whose service has not made it yet.
    auto given = vm.count("secrets-key-file") ? vm["secrets-key-file"].as<std::string>()
                                              : std::string{};
    auto store_url = vm.count("store") ? vm["store"].as<std::string>() : std::string{};
    auto choice = choose_secrets_key_file(given, store_url, vm["data-dir"].as<std::string>(),
                                          command == "xbox-login");
    if (!choice.error.empty())
      return admin_fail("secrets key: " + choice.error);
    if (choice.created)
      std::fprintf(stderr, "netherscope admin: made the secrets key %s; keep a copy apart from "
                           "the data directory\n", choice.path.c_str());
    if (choice.path.empty()) {
      xbox.key_problem = store_url.empty()
                           ? "no secrets key: " + vm["data-dir"].as<std::string>()
                               + "/secrets.key, which the service makes on its first start, is "
                                 "not there; give --secrets-key-file FILE (or "
                                 "NETHERSCOPE_SECRETS_KEY_FILE) if the service is given one"
                           : "no secrets key: on Redis give --secrets-key-file FILE (or "
                             "NETHERSCOPE_SECRETS_KEY_FILE), the same file every replica is "
                             "given; make one with: head -c 32 /dev/urandom | base64 > FILE";
    } else {
      auto loaded = base::load_secrets_key(choice.path);
      if (!loaded.key)
        return usage_error((given.empty() ? "secrets key: " : "--secrets-key-file: ")
                           + loaded.error);
      if (!loaded.warning.empty())
        std::fprintf(stderr, "netherscope admin: %s\n", loaded.warning.c_str());
      xbox.key = std::move(loaded.key);
    }
  }
  if (vm.count("store")) {
    auto problem = storage::redis_url_problem(vm["store"].as<std::string>());
    if (!vm["store"].as<std::string>().empty() && !problem.empty())
      return usage_error("--store: " + problem);
  }

  auto opened = open_store(vm);
  if (!opened)
    return admin_fail(storage::message_of(opened.error()));
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
  if (command == "xbox-login")
    return xbox_login(s, xbox);
  if (command == "xbox-status")
    return xbox_status(s, xbox);
  if (command == "xbox-logout")
    return xbox_logout(s);
  auto days = vm.count("revoked-days") ? std::int64_t{vm["revoked-days"].as<unsigned>()}
                                       : storage::revoked_key_retention_seconds / 86400;
  return prune(s, days);
}

} // namespace netherscope::app
