#include <filesystem>

#include "store/pg_store.h"
#include "store/store.h"

namespace ig {

Expected<std::unique_ptr<Store>> open_existing_store(const std::string& path) {
  std::error_code ec;
  if (!is_postgres_url(path) && !std::filesystem::is_regular_file(path, ec))
    return not_found("{}: no such store", path);
  return Store::open(path);
}

}  // namespace ig
