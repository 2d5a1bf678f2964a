#include "storage/identity_store.hpp"

#include <openssl/x509.h>

#include <caf/sec.hpp>

#include "net/crypto.hpp"

namespace netherscope::storage {

namespace {

constexpr std::string_view identity_key = "identity";
constexpr std::uint8_t identity_version = 1;
constexpr std::int64_t renew_before_seconds = 30 * 24 * 3600;

void put_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

bool take_field(std::string_view& in, std::string& out) {
  if (in.size() < 4)
    return false;
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(4);
  if (in.size() < length)
    return false;
  out.assign(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

bool expires_soon(const net::local_identity& id, std::int64_t now_unix) {
  time_t limit = static_cast<time_t>(now_unix + renew_before_seconds);
  // X509_cmp_time returns -1 when notAfter is before limit, 0 on error.
  return X509_cmp_time(X509_get0_notAfter(id.dtls_cert.get()), &limit) <= 0;
}

} // namespace

std::string encode_identity(const net::identity_blob& blob) {
  std::string out;
  out.push_back(static_cast<char>(identity_version));
  for (auto* field : {&blob.dtls_key_der, &blob.dtls_cert_der, &blob.identity_key_der}) {
    put_u32(out, static_cast<std::uint32_t>(field->size()));
    out += *field;
  }
  return out;
}

std::optional<net::identity_blob> decode_identity(std::string_view record) {
  if (record.empty() || static_cast<std::uint8_t>(record[0]) != identity_version)
    return std::nullopt;
  record.remove_prefix(1);
  net::identity_blob blob;
  if (!take_field(record, blob.dtls_key_der) || !take_field(record, blob.dtls_cert_der)
      || !take_field(record, blob.identity_key_der) || !record.empty())
    return std::nullopt;
  return blob;
}

caf::expected<std::shared_ptr<const net::local_identity>>
load_or_create_identity(env& e, MDB_dbi meta, std::int64_t now_unix) {
  // One write transaction for the whole check-and-create: write transactions exclude each
  // other across processes, so replicas sharing the environment agree on one identity.
  auto t = txn::begin(e, true);
  if (!t)
    return t.error();
  std::optional<net::local_identity> loaded;
  auto record = t->get(meta, identity_key);
  if (!record)
    return record.error();
  if (*record) {
    if (auto blob = decode_identity(**record))
      loaded = net::from_blob(*blob);
    if (!loaded)
      return caf::make_error(caf::sec::runtime_error,
                             "the stored identity is unreadable; refusing to replace it");
  }
  if (loaded && !expires_soon(*loaded, now_unix))
    return std::make_shared<const net::local_identity>(std::move(*loaded));
  auto fresh = net::make_local_identity();
  if (!fresh)
    return caf::make_error(caf::sec::runtime_error, "cannot generate keys with OpenSSL");
  if (loaded) {
    // Only the certificate is renewed: servers pin the identity key, not the certificate.
    fresh->identity_key = std::move(loaded->identity_key);
  }
  if (auto err = t->put(meta, identity_key, encode_identity(net::to_blob(*fresh))))
    return err;
  if (auto err = t->commit())
    return err;
  return std::make_shared<const net::local_identity>(std::move(*fresh));
}

caf::expected<std::string> load_or_create_secret(env& e, MDB_dbi meta, std::string_view name,
                                                 std::size_t bytes) {
  auto t = txn::begin(e, true);
  if (!t)
    return t.error();
  auto existing = t->get(meta, name);
  if (!existing)
    return existing.error();
  if (*existing && (*existing)->size() == bytes)
    return std::string{**existing};
  auto fresh = net::random_bytes(bytes);
  if (!fresh)
    return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes");
  if (auto err = t->put(meta, name, *fresh))
    return err;
  if (auto err = t->commit())
    return err;
  return *fresh;
}

} // namespace netherscope::storage
