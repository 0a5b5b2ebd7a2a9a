// Where a dlopen'ed module of this build is: beside the running executable (a copied or installed
// tree), else where the build put it. The torch backend and the image codecs are such modules.
#pragma once

#include <string>

namespace ig {

std::string module_file(const std::string& built_path);

}  // namespace ig
