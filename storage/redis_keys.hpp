// The names of the Redis store's keys, in one place. docs/OPERATIONS.md ("The Redis key
// layout") describes them for operators. Every name starts with the version prefix "ns1:" and
// carries a hash tag ({...}) per target, server, counter subject or table group, so a Redis
// Cluster could hold them later.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/target.hpp"
#include "storage/record_txn.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// The prefix of every key: a later layout gets another.
constexpr std::string_view redis_key_prefix = "ns1:";

/// "ns1:u:{<scope>:<subject>}:<endpoint>:<window>": a usage counter. The hash tag is the
/// subject, so every counter of one client or account sits in one slot.
std::string redis_counter_key(const counter_op& op);

/// "ns1:t:{<host>:<port>}": what every key about one target starts with.
std::string redis_target_tag(std::string_view host, std::uint16_t port);

/// "<target tag>:offer:<tls>:<plain|probed>": a cached offer per target and TLS mode, with
/// reachability (probe) or without.
std::string redis_offer_key(const core::target& where, bool probe);

/// "<target tag>:flight:<tls>:<plain|probed>": the lock of one flight per target.
std::string redis_flight_key(const core::target& where, bool probe);

/// "ns1:v:{<name>}": a named value every replica reads (shared_store::put_value).
std::string redis_value_key(std::string_view name);

/// "ns1:l:{<name>}": a named lease (shared_store::take_lease).
std::string redis_lease_key(std::string_view name);

/// "ns1:a:{<address>:<port>}": what the keys of one server, as connected to, start with.
std::string redis_server_tag(std::string_view server);

/// "ns1:{accounts}:accounts", ":auth", ":usage" and ":watches": the record tables, four hashes
/// under one hash tag, so one transaction can reach all of them in a Redis Cluster too.
const std::string& redis_record_hash(record_table table);

/// "ns1:meta:<name>": a named record (storage::store::load_or_replace_record).
std::string redis_meta_key(std::string_view name);

/// "ns1:{schedule}:ready" and "ns1:{schedule}:entries": the watch schedule's sorted set of
/// servers by ready time and its hash of entries, under one hash tag so one script reaches
/// both.
std::string redis_schedule_ready_key();
std::string redis_schedule_entries_key();

/// "ns1:h:{<host>|<port>}:rows" and ":hours": one watched server's history rows and hourly
/// aggregates, sorted sets scored by time.
std::string redis_history_rows_key(std::string_view schedule_key);
std::string redis_history_hours_key(std::string_view schedule_key);

} // namespace netherscope::storage
