#include "storage/store.hpp"

#include <caf/sec.hpp>

#include "base/crypto.hpp"

namespace netherscope::storage {

record_decision keep_or_draw_secret(std::size_t bytes) {
  return [bytes](std::optional<std::string_view> stored)
           -> caf::expected<std::optional<std::string>> {
    if (stored && stored->size() == bytes)
      return std::optional<std::string>{};
    auto fresh = base::random_bytes(bytes);
    if (!fresh)
      return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes");
    return fresh;
  };
}

caf::expected<std::string> load_or_create_secret(store& s, std::string_view name,
                                                 std::size_t bytes) {
  return s.load_or_replace_record(name, keep_or_draw_secret(bytes));
}

} // namespace netherscope::storage
