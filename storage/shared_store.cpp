#include "storage/shared_store.hpp"

#include "base/bytes.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t shared_offer_version = 1;

} // namespace

std::string encode(const shared_offer& x) {
  std::string out;
  out.push_back(static_cast<char>(shared_offer_version));
  out.push_back(x.probed ? 1 : 0);
  base::put_le(out, static_cast<std::uint64_t>(x.retrieved_unix));
  out += x.body;
  return out;
}

std::optional<shared_offer> decode_shared_offer(std::string_view in) {
  if (in.size() < 2 || static_cast<std::uint8_t>(in[0]) != shared_offer_version || in[1] > 1)
    return std::nullopt;
  shared_offer out;
  out.probed = in[1] == 1;
  in.remove_prefix(2);
  std::uint64_t retrieved = 0;
  if (!base::take_le(in, retrieved))
    return std::nullopt;
  out.retrieved_unix = static_cast<std::int64_t>(retrieved);
  out.body = std::string{in};
  return out;
}

} // namespace netherscope::storage
