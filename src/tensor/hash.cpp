#include "tensor/hash.h"

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

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
#if defined(__x86_64__)
  // The same XXH3 value on the widest vector unit the CPU has (libxxhash's own dispatch): the
  // portable entry point runs SSE2, and a traced run hashes every layer.
  return XXH3_64bits_dispatch(t.raw(), t.nbytes());
#else
  return XXH3_64bits(t.raw(), t.nbytes());
#endif
}

std::string hash_hex(uint64_t h) { return fmt::format("{:016x}", h); }

}  // namespace ig
