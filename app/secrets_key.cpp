#include "app/secrets_key.hpp"

#include <sys/stat.h>

#include <cerrno>

#include "base/sealed.hpp"

namespace netherscope::app {

secrets_key_choice choose_secrets_key_file(const std::string& given, const std::string& store_url,
                                           const std::string& data_dir, bool create) {
  secrets_key_choice choice;
  if (!given.empty() || !store_url.empty()) {
    choice.path = given;
    return choice;
  }
  choice.path = data_dir + "/" + embedded_secrets_key_name;
  struct stat st {};
  if (::lstat(choice.path.c_str(), &st) == 0 || errno != ENOENT)
    return choice;
  if (!create) {
    choice.path.clear();
    return choice;
  }
  choice.error = base::create_secrets_key_file(choice.path);
  choice.created = choice.error.empty();
  return choice;
}

} // namespace netherscope::app
