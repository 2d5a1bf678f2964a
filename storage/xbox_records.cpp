#include "storage/xbox_records.hpp"

#include <utility>

#include "storage/records.hpp"

namespace netherscope::storage {

caf::expected<std::optional<std::string>> load_xbox_link(record_txn& t) {
  return value_of(t, record_table::accounts, xbox_link_key);
}

caf::expected<std::optional<std::string>> read_xbox_link(store& s) {
  std::optional<std::string> sealed;
  auto err = s.with_records(false, [&](record_txn& t) -> caf::expected<bool> {
    auto found = load_xbox_link(t);
    if (!found)
      return found.error();
    sealed = std::move(*found);
    return true;
  });
  if (err)
    return err;
  return sealed;
}

caf::error save_xbox_link(record_txn& t, std::string_view sealed) {
  return t.put(record_table::accounts, xbox_link_key, sealed);
}

caf::expected<bool> delete_xbox_link(record_txn& t) {
  auto value = t.get(record_table::accounts, xbox_link_key);
  if (!value)
    return value.error();
  if (!*value)
    return false;
  if (auto err = t.del(record_table::accounts, xbox_link_key))
    return err;
  return true;
}

} // namespace netherscope::storage
