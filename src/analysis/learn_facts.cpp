#include "analysis/learn_facts.h"

#include <cstdio>

#include "analysis/compare/eqc.h"
#include "analysis/oracle/oracle.h"
#include "analysis/oracle/origins.h"

namespace ig {

Status learn_tensor_facts(const StudyData& study, TensorCache& cache) {
  const auto labels = study.labels();
  for (const auto& c : study.cases) {
    const Partition outputs = partition_values(c, labels, c.outputs);
    IG_RETURN_IF_ERROR(set_precision(c, outputs, c.outputs, cache).status());
    IG_ASSIGN_OR_RETURN(const auto rows, layer_table(c, labels, cache));
    // Every node, data movement included: with --keep-tensors none nothing can be computed later.
    for (const auto& r : rows)
      IG_RETURN_IF_ERROR(values_oracle_errors(study, c, r.values, cache).status());
  }
  IG_RETURN_IF_ERROR(precision_matrix(study, cache).status());
  IG_RETURN_IF_ERROR(oracle_ranking(study, cache).status());
  IG_RETURN_IF_ERROR(oracle_origins(study, cache).status());
  return tolerance_advice(study, cache).status();
}

void keep_tensor_facts(Store& store, const StudyData& study, const char* command) {
  const size_t n = study.facts->learned();
  if (n == 0) return;
  if (Status st = study.facts->save(store); !st.ok())
    std::fprintf(stderr, "infergap %s: note: %zu computed tensor facts not kept in the store: %s\n",
                 command, n, st.message().c_str());
}

}  // namespace ig
