// The one way in to storage: opens the store the options name, LMDB in a data directory (the
// embedded default) or Redis at a redis:// or rediss:// URL, and returns it with the parts
// only some backends offer. The service, the admin CLI and the tests all open stores here.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "storage/counter_archive.hpp"
#include "storage/shared_store.hpp"
#include "storage/store.hpp"
#include "storage/watch_store.hpp"

namespace netherscope::storage {

/// Where the store is, and the knobs its callers set.
struct open_options {
  /// LMDB: the directory of the main environment (--data-dir); the target memory goes in its
  /// subdirectory targets/. Unused when url is set.
  std::string data_dir;
  /// Redis when not empty: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or rediss://... (--store).
  std::string url;
  /// Creates data_dir (and its parents) when missing. The admin CLI does not, so a mistyped
  /// directory is an error rather than a new empty store.
  bool create_data_dir = true;
  /// LMDB: the most the main environment may grow to (--store-map-size-mb).
  std::size_t map_size = std::size_t{1} << 30;
  /// LMDB: fsync at every commit (--store-sync); without it a commit survives a crash of the
  /// process but not of the machine.
  bool sync = true;
  /// LMDB: the most the target memory may grow to: about 200k records of ~300 bytes, far
  /// beyond what honest use makes. It never syncs: it holds hints, and losing the last writes
  /// to a power cut costs one detection.
  std::size_t targets_map_size = std::size_t{64} << 20;
  /// Redis: connections in the pool; one suffices for a single caller (the admin CLI).
  unsigned redis_connections = 4;
  /// Redis: the limit of a connect and of one command's round trip.
  std::chrono::milliseconds redis_timeout{1000};
  /// Redis: replicas that must acknowledge each durable write (--store-min-replicas); unset
  /// means 1 under Sentinel, whose point is a replica to fail over to, and 0 for one Redis.
  std::optional<unsigned> min_replicas;
  /// Redis: how long a durable write waits for those replicas before it is refused; kept
  /// under half of redis_timeout, so the wait's answer always arrives before the command's
  /// limit.
  std::chrono::milliseconds replica_wait{500};
};

/// What --store-min-replicas means when not given, for the store at url.
unsigned default_min_replicas(std::string_view url);

/// An open store and the parts of it that only some backends offer; each part is null where
/// the backend does not offer it. They share one object: keep any of them, and it stays open.
struct opened {
  /// What every backend does.
  std::shared_ptr<storage::store> store;
  /// What only a store shared across hosts does (Redis); null on LMDB.
  std::shared_ptr<storage::shared_store> shared;
  /// Usage counters kept until pruned (LMDB); null on Redis, whose counters expire.
  std::shared_ptr<storage::counter_archive> archive;
  /// The watch schedule and the watched servers' history (every backend).
  std::shared_ptr<storage::watch_store> watching;
};

/// Opens the store. On LMDB the directories are made (as options say) and the environments and
/// their databases opened; LMDB allows one open of a directory per process, so whoever needs
/// the store twice in one process shares the object opened once (processes may each open it).
/// On Redis nothing connects yet: the first call does, and while Redis is down calls fail until
/// it returns. The error says in plain words what could not be opened and why, never with a
/// password.
caf::expected<opened> open(const open_options& options);

/// The words of an error, without CAF's wrapping: the message a store's error carries, else
/// the error as CAF writes it. For log lines and the admin CLI's messages.
std::string message_of(const caf::error& err);

} // namespace netherscope::storage
