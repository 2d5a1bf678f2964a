#include "storage/open.hpp"

#include <filesystem>
#include <system_error>

#include <caf/sec.hpp>

#include "storage/lmdb_store.hpp"
#include "storage/lmdb_watch_store.hpp"
#include "storage/redis_store.hpp"
#include "storage/redis_watch_store.hpp"

namespace netherscope::storage {

namespace {

caf::error cannot(std::string what) {
  return caf::make_error(caf::sec::runtime_error, std::move(what));
}

/// Opens the named databases of e, in order; the error names the first that failed.
caf::error open_dbs(env& e, std::initializer_list<std::pair<const char*, MDB_dbi*>> dbs) {
  for (auto [name, dbi] : dbs) {
    auto opened = e.open_db(name);
    if (!opened)
      return opened.error();
    *dbi = *opened;
  }
  return {};
}

caf::expected<opened> open_lmdb(const open_options& options) {
  const auto& dir = options.data_dir;
  if (dir.empty())
    return cannot("no data directory was given for the store");
  if (options.create_data_dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return cannot("cannot create the data directory '" + dir + "': " + ec.message());
  }
  lmdb_parts parts;
  env_options main_cfg;
  main_cfg.map_size = options.map_size;
  main_cfg.sync = options.sync;
  auto main = env::open(dir, main_cfg);
  if (!main)
    return cannot("cannot open the store in '" + dir + "': " + message_of(main.error()));
  parts.main = *main;
  if (auto err = open_dbs(*parts.main, {{"meta", &parts.meta},
                                        {"usage", &parts.usage},
                                        {"accounts", &parts.accounts},
                                        {"auth", &parts.auth},
                                        {"watches", &parts.watches}}))
    return cannot("cannot open the store's databases in '" + dir + "': " + message_of(err));
  auto targets_dir = (std::filesystem::path{dir} / "targets").string();
  auto targets_failed = [&](const std::string& why) {
    return cannot("cannot open the target memory in '" + targets_dir + "': " + why);
  };
  std::error_code ec;
  std::filesystem::create_directories(targets_dir, ec);
  if (ec)
    return targets_failed(ec.message());
  env_options targets_cfg;
  targets_cfg.map_size = options.targets_map_size;
  targets_cfg.sync = false;
  auto targets = env::open(targets_dir, targets_cfg);
  if (!targets)
    return targets_failed(message_of(targets.error()));
  parts.targets_env = *targets;
  if (auto err = open_dbs(*parts.targets_env, {{"targets", &parts.targets}}))
    return targets_failed(message_of(err));
  MDB_dbi history = 0;
  if (auto err = open_dbs(*parts.main, {{"history", &history}}))
    return cannot("cannot open the store's databases in '" + dir + "': " + message_of(err));
  auto watching = std::make_shared<lmdb_watch_store>(parts.main, history);
  auto store = std::make_shared<lmdb_store>(std::move(parts));
  return opened{store, nullptr, store, std::move(watching)};
}

caf::expected<opened> open_redis(const open_options& options) {
  std::string problem;
  auto address = read_redis_url(options.url, problem);
  if (!address)
    return caf::make_error(caf::sec::invalid_argument, problem);
  redis_settings settings;
  settings.address = std::move(*address);
  settings.connections = options.redis_connections;
  settings.timeout = options.redis_timeout;
  settings.min_replicas = options.min_replicas.value_or(settings.address.sentinels.empty() ? 0 : 1);
  settings.replica_wait = std::min(options.replica_wait, settings.timeout / 2);
  auto store = std::make_shared<redis_store>(std::move(settings));
  auto watching = std::make_shared<redis_watch_store>(store->pool());
  return opened{store, store, nullptr, std::move(watching)};
}

} // namespace

std::string message_of(const caf::error& err) {
  const auto& context = err.context();
  if (context.size() == 1 && context.match_element<std::string>(0))
    return context.get_as<std::string>(0);
  return caf::to_string(err);
}

unsigned default_min_replicas(std::string_view url) {
  std::string problem;
  auto address = read_redis_url(std::string{url}, problem);
  return address && !address->sentinels.empty() ? 1 : 0;
}

caf::expected<opened> open(const open_options& options) {
  return options.url.empty() ? open_lmdb(options) : open_redis(options);
}

} // namespace netherscope::storage
