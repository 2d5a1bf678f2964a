#include "app/identity.hpp"

#include <optional>
#include <string>
#include <string_view>

#include <caf/sec.hpp>

namespace netherscope::app {

namespace nethernet = net::nethernet;

namespace {

constexpr std::string_view identity_record = "identity";
constexpr std::int64_t renew_before_seconds = 30 * 24 * 3600;

} // namespace

caf::expected<std::shared_ptr<const nethernet::local_identity>>
load_or_create_identity(storage::store& store, std::int64_t now_unix) {
  std::optional<nethernet::local_identity> in_force;
  auto decide = [&](std::optional<std::string_view> stored)
    -> caf::expected<std::optional<std::string>> {
    std::optional<nethernet::local_identity> loaded;
    if (stored) {
      if (auto blob = nethernet::decode_identity(*stored))
        loaded = nethernet::from_blob(*blob);
      if (!loaded)
        return caf::make_error(caf::sec::runtime_error,
                               "the stored identity is unreadable; refusing to replace it");
      if (!nethernet::certificate_expires_before(*loaded, now_unix + renew_before_seconds)) {
        in_force = std::move(loaded);
        return std::optional<std::string>{};
      }
    }
    auto fresh = nethernet::make_local_identity();
    if (!fresh)
      return caf::make_error(caf::sec::runtime_error, "cannot generate keys with OpenSSL");
    if (loaded)
      fresh->identity_key = std::move(loaded->identity_key);
    auto record = nethernet::encode_identity(nethernet::to_blob(*fresh));
    in_force = std::move(fresh);
    return std::optional<std::string>{std::move(record)};
  };
  auto stored = store.load_or_replace_record(identity_record, decide);
  if (!stored)
    return stored.error();
  return std::make_shared<const nethernet::local_identity>(std::move(*in_force));
}

} // namespace netherscope::app
