// Secrets at rest: AES-256-GCM under a key the operator keeps outside the store, so that the
// store alone reveals nothing (a copied LMDB file, a Redis dump, a backup).
//
// A sealed value is one byte string:
//
//   version (1 byte, 1) | key id (8 bytes) | nonce (12 bytes) | ciphertext | tag (16 bytes)
//
// The nonce is random for every seal (one key seals few values, far below the 2^32 that
// random 96-bit nonces allow, NIST SP 800-38D §8.3). The associated data authenticates the
// version, the key id and a label naming what the secret is ("xbox-link"), so a sealed value
// moved to another record fails to open instead of passing for that record's secret. The key
// id is a digest of the key, not the key: it lets a store copied to a deployment with another
// key say "sealed with another key" rather than "corrupt".
//
// Nothing here throws except std::bad_alloc, and nothing here writes the key or a plaintext
// into an error message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::base {

/// The operator's secrets key: 32 random bytes, wiped from memory when it goes.
class secrets_key {
public:
  /// The key's length in bytes (AES-256).
  static constexpr std::size_t size = 32;

  /// A key from exactly 32 bytes; nullopt for any other length.
  static std::optional<secrets_key> from_bytes(std::string_view bytes);

  secrets_key(const secrets_key& other) = default;
  secrets_key& operator=(const secrets_key& other) = default;
  secrets_key(secrets_key&& other) noexcept;
  secrets_key& operator=(secrets_key&& other) noexcept;
  ~secrets_key();

  /// The raw key bytes (for sealing only; never log them).
  std::string_view bytes() const noexcept {
    return bytes_;
  }

  /// The key's identifier: the first 8 bytes of SHA-256 over a label and the key, as 16
  /// lowercase hex digits. Safe to show and to store beside what the key sealed.
  const std::string& id() const noexcept {
    return id_hex_;
  }

  /// The same identifier as its 8 raw bytes, as a sealed value carries it.
  std::string_view id_bytes() const noexcept {
    return id_raw_;
  }

private:
  secrets_key() = default;

  std::string bytes_;
  std::string id_raw_;
  std::string id_hex_;
};

/// Why a sealed value did not open.
enum class open_error {
  /// Nothing is wrong.
  none,
  /// Too short, or a version byte we do not know: not something seal() wrote.
  malformed,
  /// Sealed under another key (the key ids differ): the store came from another deployment,
  /// or the operator's key changed.
  other_key,
  /// Sealed under this key, but it does not verify: the bytes were changed, or the value
  /// belongs to another record (other associated data).
  corrupt,
};

/// A sentence for the operator saying what an open_error means and what to do.
std::string_view describe(open_error error);

/// Seals plaintext under key, bound to label (what the secret is, e.g. "xbox-link"); nullopt
/// only when OpenSSL fails.
std::optional<std::string> seal(const secrets_key& key, std::string_view label,
                                std::string_view plaintext);

/// Opens what seal() made with the same key and label. On failure returns nullopt and, if
/// error is given, says why.
std::optional<std::string> open_sealed(const secrets_key& key, std::string_view label,
                                       std::string_view sealed, open_error* error = nullptr);

/// The key id a sealed value names (16 lowercase hex digits), or nullopt when it is too short
/// or of an unknown version; lets a status command say which key sealed it.
std::optional<std::string> sealed_key_id(std::string_view sealed);

// -- the operator's key file --

/// What reading the key file found: the key, or why there is none; and a warning to log even
/// when the key was read.
struct key_file_result {
  std::optional<secrets_key> key;
  /// Why there is no key, in the operator's words with the fix; empty when key is set.
  std::string error;
  /// Set when the file is writable by its group: the key is used, and the caller should log
  /// this.
  std::string warning;
};

/// Reads the key from text as the key file holds it: the standard base64 of exactly 32 bytes,
/// surrounding whitespace (a trailing newline) ignored. The error never quotes the text.
key_file_result parse_secrets_key(std::string_view text);

/// Reads the operator's key file (--secrets-key-file or NETHERSCOPE_SECRETS_KEY_FILE): a
/// regular file of at most 4 KiB holding parse_secrets_key's form. A file that every user may
/// read or write (mode o+r or o+w) is refused, naming the file; one its group may read is used,
/// since container runtimes mount secrets so (a Kubernetes Secret with defaultMode 0440 and an
/// fsGroup), and one its group may write is used with a warning.
key_file_result load_secrets_key(const std::string& path);

/// Makes a new key file at path: 32 bytes from OpenSSL's CSPRNG as standard base64 and a
/// newline, mode 0600, written and synced before it is named. Never replaces a file: fails
/// when path exists. Empty on success, else why, in the operator's words.
std::string create_secrets_key_file(const std::string& path);

} // namespace netherscope::base
