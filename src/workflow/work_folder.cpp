#include "workflow/work_folder.h"

#include <unistd.h>

#include <filesystem>

namespace ig {

namespace fs = std::filesystem;

WorkFolder::WorkFolder(const std::string& what) {
  dir_ = (fs::temp_directory_path() / ("infergap-" + what + "-" + std::to_string(::getpid())))
             .string();
  std::error_code ec;
  fs::create_directories(dir_, ec);
}

WorkFolder::~WorkFolder() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string WorkFolder::file(const std::string& name) const {
  return (fs::path(dir_) / name).string();
}

}  // namespace ig
