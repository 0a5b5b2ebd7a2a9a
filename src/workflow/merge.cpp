#include "workflow/merge.h"

#include "store/pg_store.h"
#include "store/store.h"

namespace ig {

Expected<std::map<std::string, int64_t>> merge_stores(const std::vector<std::string>& sources,
                                                      const std::string& output) {
  IG_ASSIGN_OR_RETURN(const std::unique_ptr<Store> out, Store::open(output));
  for (const auto& src : sources) {
    // A PostgreSQL source is merged from its snapshot; a PostgreSQL output gets the union.
    std::unique_ptr<Store> snapshot;
    if (is_postgres_url(src)) {
      IG_ASSIGN_OR_RETURN(snapshot, Store::open(src));
    }
    IG_RETURN_IF_ERROR(out->merge_from(snapshot ? snapshot->path() : src));
  }
  IG_RETURN_IF_ERROR(out->push_to_remote());
  std::map<std::string, int64_t> counts;
  for (const char* table : {"hosts", "platforms", "models", "inputs", "runs", "tensors"}) {
    IG_ASSIGN_OR_RETURN(counts[table], out->count(table));
  }
  return counts;
}

}  // namespace ig
