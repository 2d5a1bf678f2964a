#include "base/sealed.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/crypto.hpp"
#include "base/text.hpp"

namespace netherscope::base {

namespace {

constexpr std::uint8_t sealed_version = 1;
constexpr std::size_t key_id_bytes = 8;
constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;
constexpr std::size_t header_bytes = 1 + key_id_bytes + nonce_bytes;

// Names what the key id digests, so the id is never the digest of the bare key that some
// other use of the same bytes might publish.
constexpr std::string_view key_id_label = "netherscope secrets key id v1";

// Names what the associated data authenticates, before the caller's label.
constexpr std::string_view aad_label = "netherscope sealed v1|";

// The key file is a line of base64; anything much larger is not one.
constexpr std::uintmax_t max_key_file_bytes = 4096;

struct cipher_ctx_deleter {
  void operator()(EVP_CIPHER_CTX* p) const noexcept { EVP_CIPHER_CTX_free(p); }
};
using cipher_ctx_ptr = std::unique_ptr<EVP_CIPHER_CTX, cipher_ctx_deleter>;

const unsigned char* uchars(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

unsigned char* uchars(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

// The associated data: our label, the caller's label, then the version and key id as the
// sealed value carries them, so none of the three can be changed without the tag failing.
std::string associated_data(std::string_view label, std::string_view header) {
  std::string aad{aad_label};
  aad += label;
  aad += '|';
  aad += header.substr(0, 1 + key_id_bytes);
  return aad;
}

void wipe(std::string& s) noexcept {
  if (!s.empty())
    OPENSSL_cleanse(s.data(), s.size());
  s.clear();
}

/// The permission bits as chmod takes them: "644".
std::string mode_digits(mode_t mode) {
  return std::to_string((mode >> 6) & 7) + std::to_string((mode >> 3) & 7)
         + std::to_string(mode & 7);
}

key_file_result no_key(std::string why) {
  key_file_result r;
  r.error = std::move(why);
  return r;
}

constexpr std::string_view make_key_hint =
  "make one with: head -c 32 /dev/urandom | base64 > FILE && chmod 600 FILE";

// Reads the key from the file's text; `file` names the file in the errors.
key_file_result parse_key_text(std::string_view text, const std::string& file) {
  auto b64 = trim(text, " \t\r\n");
  if (b64.empty())
    return no_key(file + " is empty; " + std::string{make_key_hint});
  auto raw = base64_decode(b64);
  if (!raw)
    return no_key(file + " does not hold standard base64; " + std::string{make_key_hint});
  auto key = secrets_key::from_bytes(*raw);
  auto length = raw->size();
  wipe(*raw);
  if (!key)
    return no_key(file + " holds " + std::to_string(length) + " bytes, not 32; "
                  + std::string{make_key_hint});
  key_file_result r;
  r.key = std::move(key);
  return r;
}

} // namespace

// -- the key --

std::optional<secrets_key> secrets_key::from_bytes(std::string_view bytes) {
  if (bytes.size() != size)
    return std::nullopt;
  secrets_key key;
  key.bytes_.assign(bytes);
  std::string input{key_id_label};
  input += bytes;
  auto digest = sha256(input);
  wipe(input);
  if (digest.size() < key_id_bytes)
    return std::nullopt;
  key.id_raw_ = digest.substr(0, key_id_bytes);
  key.id_hex_ = hex_lower(key.id_raw_);
  return key;
}

secrets_key::secrets_key(secrets_key&& other) noexcept
  : bytes_(std::move(other.bytes_)),
    id_raw_(std::move(other.id_raw_)),
    id_hex_(std::move(other.id_hex_)) {
  wipe(other.bytes_);
}

secrets_key& secrets_key::operator=(secrets_key&& other) noexcept {
  if (this != &other) {
    wipe(bytes_);
    bytes_ = std::move(other.bytes_);
    id_raw_ = std::move(other.id_raw_);
    id_hex_ = std::move(other.id_hex_);
    wipe(other.bytes_);
  }
  return *this;
}

secrets_key::~secrets_key() {
  wipe(bytes_);
}

// -- sealing --

std::string_view describe(open_error error) {
  switch (error) {
    case open_error::none:
      return "The sealed value opened.";
    case open_error::malformed:
      return "The sealed value is not one this version of netherscope wrote (too short or an "
             "unknown version).";
    case open_error::other_key:
      return "The value was sealed with another secrets key: this store comes from a "
             "deployment with another --secrets-key-file, or the key changed. Give the key it "
             "was sealed with, or link again.";
    case open_error::corrupt:
      return "The sealed value does not verify under this secrets key: its bytes were "
             "changed, or it was copied from another record. Link again.";
  }
  return "The sealed value did not open.";
}

std::optional<std::string> seal(const secrets_key& key, std::string_view label,
                                std::string_view plaintext) {
  error_queue_mark mark;
  if (plaintext.size() > static_cast<std::size_t>(INT_MAX) - 64)
    return std::nullopt;
  auto nonce = random_bytes(nonce_bytes);
  if (!nonce)
    return std::nullopt;
  std::string out;
  out.reserve(header_bytes + plaintext.size() + tag_bytes);
  out.push_back(static_cast<char>(sealed_version));
  out += key.id_bytes();
  out += *nonce;
  auto aad = associated_data(label, out);

  cipher_ctx_ptr ctx{EVP_CIPHER_CTX_new()};
  int n = 0;
  // GCM's default IV length is the 12 bytes we use, so it needs no EVP_CTRL_GCM_SET_IVLEN.
  if (!ctx
      || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, uchars(key.bytes()),
                            uchars(*nonce))
           != 1
      || EVP_EncryptUpdate(ctx.get(), nullptr, &n, uchars(aad), static_cast<int>(aad.size()))
           != 1)
    return std::nullopt;
  auto at = out.size();
  out.resize(at + plaintext.size() + tag_bytes);
  int written = 0;
  if (!plaintext.empty()
      && EVP_EncryptUpdate(ctx.get(), uchars(out) + at, &written, uchars(plaintext),
                           static_cast<int>(plaintext.size()))
           != 1)
    return std::nullopt;
  int final_bytes = 0;
  if (EVP_EncryptFinal_ex(ctx.get(), uchars(out) + at + written, &final_bytes) != 1)
    return std::nullopt;
  at += static_cast<std::size_t>(written + final_bytes);
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_bytes),
                          uchars(out) + at)
      != 1)
    return std::nullopt;
  out.resize(at + tag_bytes);
  return out;
}

std::optional<std::string> open_sealed(const secrets_key& key, std::string_view label,
                                       std::string_view sealed, open_error* error) {
  error_queue_mark mark;
  auto refuse = [error](open_error why) -> std::optional<std::string> {
    if (error)
      *error = why;
    return std::nullopt;
  };
  if (sealed.size() < header_bytes + tag_bytes
      || static_cast<std::uint8_t>(sealed[0]) != sealed_version
      || sealed.size() > static_cast<std::size_t>(INT_MAX))
    return refuse(open_error::malformed);
  if (sealed.substr(1, key_id_bytes) != key.id_bytes())
    return refuse(open_error::other_key);
  auto nonce = sealed.substr(1 + key_id_bytes, nonce_bytes);
  auto body = sealed.substr(header_bytes, sealed.size() - header_bytes - tag_bytes);
  std::string tag{sealed.substr(sealed.size() - tag_bytes)};
  auto aad = associated_data(label, sealed);

  cipher_ctx_ptr ctx{EVP_CIPHER_CTX_new()};
  int n = 0;
  if (!ctx
      || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, uchars(key.bytes()),
                            uchars(nonce))
           != 1
      || EVP_DecryptUpdate(ctx.get(), nullptr, &n, uchars(aad), static_cast<int>(aad.size()))
           != 1)
    return refuse(open_error::corrupt);
  std::string plain(body.size(), '\0');
  int written = 0;
  if (!body.empty()
      && EVP_DecryptUpdate(ctx.get(), uchars(plain), &written, uchars(body),
                           static_cast<int>(body.size()))
           != 1) {
    wipe(plain);
    return refuse(open_error::corrupt);
  }
  int final_bytes = 0;
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_bytes),
                          uchars(tag))
        != 1
      || EVP_DecryptFinal_ex(ctx.get(), uchars(plain) + written, &final_bytes) != 1) {
    // A plaintext whose tag failed must never be used, not even in part.
    wipe(plain);
    return refuse(open_error::corrupt);
  }
  plain.resize(static_cast<std::size_t>(written + final_bytes));
  if (error)
    *error = open_error::none;
  return plain;
}

std::optional<std::string> sealed_key_id(std::string_view sealed) {
  if (sealed.size() < header_bytes + tag_bytes
      || static_cast<std::uint8_t>(sealed[0]) != sealed_version)
    return std::nullopt;
  return hex_lower(sealed.substr(1, key_id_bytes));
}

// -- the key file --

key_file_result parse_secrets_key(std::string_view text) {
  return parse_key_text(text, "the secrets key file");
}

key_file_result load_secrets_key(const std::string& path) {
  if (path.empty())
    return no_key("no secrets key file given (--secrets-key-file or "
                  "NETHERSCOPE_SECRETS_KEY_FILE); " + std::string{make_key_hint});
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    auto why = errno == ENOENT ? std::string{"does not exist"}
                               : "cannot be read (" + std::string{std::strerror(errno)} + ")";
    return no_key("the secrets key file " + path + " " + why + "; "
                  + std::string{make_key_hint});
  }
  if (!S_ISREG(st.st_mode))
    return no_key("the secrets key file " + path + " is not a regular file");
  if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0)
    return no_key("the secrets key file " + path + " may be read or written by every user (mode "
                  + mode_digits(st.st_mode) + "); chmod 600 it (640 to share it with a group, as "
                  "a Kubernetes Secret mounted with defaultMode 0440 is)");
  if (static_cast<std::uintmax_t>(st.st_size) > max_key_file_bytes)
    return no_key("the secrets key file " + path + " is larger than 4 KiB, so it is no key "
                  "file; " + std::string{make_key_hint});
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return no_key("the secrets key file " + path + " cannot be opened for reading");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto r = parse_key_text(text, "the secrets key file " + path);
  wipe(text);
  if (!r.key)
    return r;
  if ((st.st_mode & S_IWGRP) != 0)
    r.warning = "the secrets key file " + path + " may be written by its group (mode "
                + mode_digits(st.st_mode) + "); chmod 640 it, or 600";
  return r;
}

std::string create_secrets_key_file(const std::string& path) {
  auto raw = random_bytes(secrets_key::size);
  if (!raw)
    return "cannot draw a secrets key from OpenSSL's random generator";
  auto text = base64_encode(*raw) + "\n";
  wipe(*raw);
  // Written under a temporary name and linked into place, so that a crash leaves either no
  // key file or a whole one, and an existing file is never replaced.
  auto temporary = path + ".new";
  ::unlink(temporary.c_str());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    wipe(text);
    return "cannot create " + temporary + " (" + std::strerror(errno) + ")";
  }
  bool written = ::fchmod(fd, 0600) == 0
                 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())
                 && ::fsync(fd) == 0;
  int saved = errno;
  wipe(text);
  ::close(fd);
  if (!written) {
    ::unlink(temporary.c_str());
    return "cannot write " + temporary + " (" + std::strerror(saved) + ")";
  }
  int linked = ::link(temporary.c_str(), path.c_str());
  saved = errno;
  ::unlink(temporary.c_str());
  if (linked != 0)
    return "cannot create " + path + " (" + std::strerror(saved) + ")";
  return {};
}

} // namespace netherscope::base
