// A private temporary folder for a command's scratch files (candidate models, stored inputs),
// named after the command and the process, removed with the object on every path out.
#pragma once

#include <string>

namespace ig {

class WorkFolder {
 public:
  explicit WorkFolder(const std::string& what);
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  const std::string& path() const { return dir_; }
  std::string file(const std::string& name) const;

 private:
  std::string dir_;
};

}  // namespace ig
