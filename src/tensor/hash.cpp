#include "tensor/hash.h"

#include <xxhash.h>

namespace ig {

uint64_t tensor_hash(const Tensor& t) {
  if (t.dtype() == DType::kString) {
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    for (const auto& s : t.strings()) {
      const uint64_t len = s.size();
      XXH3_64bits_update(state, &len, sizeof len);
      XXH3_64bits_update(state, s.data(), s.size());
    }
    const uint64_t h = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return h;
  }
  return XXH3_64bits(t.raw(), t.nbytes());
}

std::string hash_hex(uint64_t h) { return fmt::format("{:016x}", h); }

}  // namespace ig
