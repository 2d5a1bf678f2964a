// Which secrets key file the service and the admin command use (docs/OPERATIONS.md, "The
// secrets key"): the one the operator gives; else, on the embedded store, the data directory's
// own, made on the first start so that every feature that seals a secret works out of the box;
// else, on Redis, none, since replicas must share one key and only the operator can give it
// to each.
#pragma once

#include <string>

namespace netherscope::app {

/// The file name of the key the data directory holds on the embedded store.
constexpr const char* embedded_secrets_key_name = "secrets.key";

/// What choose_secrets_key_file decided.
struct secrets_key_choice {
  /// The key file to read; empty when there is none (Redis without --secrets-key-file).
  std::string path;
  /// Whether the file was made just now.
  bool created = false;
  /// Why the data directory's key could not be made; empty otherwise.
  std::string error;
};

/// The key file to use: `given` when set; else, when store_url is empty (the embedded store),
/// data_dir's secrets.key, made there when missing if `create` allows it (none when missing
/// and not made); else none.
secrets_key_choice choose_secrets_key_file(const std::string& given, const std::string& store_url,
                                           const std::string& data_dir, bool create);

} // namespace netherscope::app
