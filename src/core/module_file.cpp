#include "core/module_file.h"

#include <filesystem>

namespace ig {

std::string module_file(const std::string& built_path) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = exe.parent_path() / std::filesystem::path(built_path).filename();
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return built_path;
}

}  // namespace ig
