#include "storage/meta_records.hpp"

#include <caf/sec.hpp>

namespace netherscope::storage {

caf::expected<std::string> load_or_replace_record(env& e, MDB_dbi meta, std::string_view name,
                                                  const record_decision& decide) {
  auto t = txn::begin(e, true);
  if (!t)
    return t.error();
  auto existing = t->get(meta, name);
  if (!existing)
    return existing.error();
  auto decision = decide(*existing);
  if (!decision)
    return decision.error();
  if (!*decision) {
    if (!*existing)
      return caf::make_error(caf::sec::runtime_error, "nothing stored and nothing to store");
    return std::string{**existing};
  }
  if (auto err = t->put(meta, name, **decision))
    return err;
  if (auto err = t->commit())
    return err;
  return std::move(**decision);
}

caf::expected<std::string> load_or_create_secret(env& e, MDB_dbi meta, std::string_view name,
                                                 std::size_t bytes) {
  return load_or_replace_record(e, meta, name, keep_or_draw_secret(bytes));
}

} // namespace netherscope::storage
