#include "storage/redis_keys.hpp"

namespace netherscope::storage {

namespace {

// The prefix and what follows it.
std::string prefixed(std::string_view rest) {
  return std::string{redis_key_prefix} + std::string{rest};
}

// The part of an offer's or a flight's key after the target: the TLS mode and the kind.
std::string flight_suffix(const core::target& where, bool probe) {
  return std::to_string(static_cast<int>(where.tls)) + (probe ? ":probed" : ":plain");
}

} // namespace

std::string redis_counter_key(const counter_op& op) {
  return prefixed("u:{") + op.scope + ":" + op.subject + "}:" + op.endpoint + ":" + op.window;
}

std::string redis_target_tag(std::string_view host, std::uint16_t port) {
  return prefixed("t:{") + std::string{host} + ":" + std::to_string(port) + "}";
}

std::string redis_offer_key(const core::target& where, bool probe) {
  return redis_target_tag(where.host, where.port) + ":offer:" + flight_suffix(where, probe);
}

std::string redis_flight_key(const core::target& where, bool probe) {
  return redis_target_tag(where.host, where.port) + ":flight:" + flight_suffix(where, probe);
}

std::string redis_value_key(std::string_view name) {
  return prefixed("v:{") + std::string{name} + "}";
}

std::string redis_lease_key(std::string_view name) {
  return prefixed("l:{") + std::string{name} + "}";
}

std::string redis_server_tag(std::string_view server) {
  return prefixed("a:{") + std::string{server} + "}";
}

const std::string& redis_record_hash(record_table table) {
  // Accounts change rarely (sign-ins, new keys, watches): one slot for all four is plenty.
  static const std::string hashes[] = {
    prefixed("{accounts}:accounts"),
    prefixed("{accounts}:auth"),
    prefixed("{accounts}:usage"),
    prefixed("{accounts}:watches"),
  };
  return hashes[static_cast<std::size_t>(table)];
}

std::string redis_meta_key(std::string_view name) {
  return prefixed("meta:") + std::string{name};
}

std::string redis_schedule_ready_key() {
  return prefixed("{schedule}:ready");
}

std::string redis_schedule_entries_key() {
  return prefixed("{schedule}:entries");
}

std::string redis_history_rows_key(std::string_view schedule_key) {
  return prefixed("h:{") + std::string{schedule_key} + "}:rows";
}

std::string redis_history_hours_key(std::string_view schedule_key) {
  return prefixed("h:{") + std::string{schedule_key} + "}:hours";
}

} // namespace netherscope::storage
