// A model declaring an opset newer than the reference kernels implement is refused, naming the
// file, the domain and both versions, instead of running as if it declared an older one.
#include "backends/ref/ref_opsets.h"

#include <gtest/gtest.h>

#include "backends/ref/ref_backend.h"

namespace ig {
namespace {

Model with_opsets(std::map<std::string, int64_t> opsets) {
  Model m;
  m.path = "m.onnx";
  m.opsets = std::move(opsets);
  return m;
}

TEST(RefOpsets, NewerThanImplementedIsRefusedWithFileDomainAndVersions) {
  EXPECT_TRUE(check_ref_opsets(with_opsets({{"", 28}})).ok());
  const Status st = check_ref_opsets(with_opsets({{"", 99}}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "m.onnx: the model declares opset 99 of domain ai.onnx, newer than the reference "
            "backend implements (28); export it for opset 28 or lower");
  EXPECT_FALSE(check_ref_opsets(with_opsets({{"ai.onnx", 29}})).ok());
  EXPECT_NE(check_ref_opsets(with_opsets({{"", 13}, {"com.microsoft", 2}}))
                .message()
                .find("opset 2 of domain com.microsoft"),
            std::string::npos);
  // Domains without reference kernels are not limited: their nodes are refused one by one.
  EXPECT_TRUE(check_ref_opsets(with_opsets({{"", 13}, {"ai.onnx.ml", 99}})).ok());
}

TEST(RefOpsets, TheReferenceBackendRefusesSuchAModelWhenAskedWhatItCanRun) {
  RefBackend ref;
  EXPECT_TRUE(ref.check_loads(with_opsets({{"", 13}})).ok());
  const Status st = ref.check_loads(with_opsets({{"", 29}}));
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_NE(st.message().find("opset 29 of domain ai.onnx"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ig
