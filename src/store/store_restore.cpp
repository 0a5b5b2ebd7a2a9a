// Store: putting back the bytes of tensors a --keep-tensors origins or none study dropped, once a
// re-run has made them again (study/restore_tensors.h).
#include <sqlite3.h>

#include <memory>

#include "store/sqlite_util.h"
#include "store/store.h"
#include "store/store_parse.h"
#include "store/tensor_blob.h"
#include "tensor/hash.h"

namespace ig {

Expected<int64_t> Store::restore_tensors(const std::vector<Tensor>& tensors) {
  // A read inside a write (a study's) restores within that transaction.
  std::unique_ptr<sql::Transaction> tx;
  if (sqlite3_get_autocommit(db_)) {
    tx = std::make_unique<sql::Transaction>(db_);
    IG_RETURN_IF_ERROR(tx->status());
  }
  int64_t restored = 0;
  sql::Stmt missing(db_,
                    "SELECT 1 FROM tensors WHERE hash = ? AND dtype = ? AND shape = ? AND data IS "
                    "NULL");
  for (const Tensor& t : tensors) {
    if (t.dtype() == DType::kString) continue;
    const TensorKey key = TensorKey::of(t);
    missing.reset();
    missing.bind(1, hash_hex(key.hash))
        .bind(2, dtype_name(key.dtype))
        .bind(3, shape_json(key.shape));
    if (!missing.step()) {
      IG_RETURN_IF_ERROR(missing.status());
      continue;
    }
    missing.reset();
    IG_RETURN_IF_ERROR(put_tensor(key, t));
    ++restored;
  }
  if (tx) IG_RETURN_IF_ERROR(tx->commit());
  return restored;
}

Expected<std::vector<Store::RunOfTensor>> Store::runs_of_tensor(const TensorKey& key) const {
  sql::Stmt st(db_,
               "SELECT DISTINCT o.run, r.host FROM node_outputs o JOIN runs r ON r.id = o.run "
               "WHERE o.hash = ? AND o.dtype = ? AND o.shape = ? AND r.verdict = 'ok' "
               "ORDER BY o.run");
  st.bind(1, hash_hex(key.hash)).bind(2, dtype_name(key.dtype)).bind(3, shape_json(key.shape));
  std::vector<RunOfTensor> out;
  while (st.step()) out.push_back({st.integer(0), st.text(1)});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

}  // namespace ig
