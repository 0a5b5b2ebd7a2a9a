// A platform that maps ONNX nodes onto a library's calls (oneDNN, cuDNN / cuBLAS). This class is
// what they share: the support check (domain, data movement on the reference kernels, the
// library's op table), the reference fallback, notes, the trace and the run's values
// (library_executor.h). A library supplies the hooks: its op table check, its fallback option and
// one LibraryRun per run (library_run.h).
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/library/library_run.h"
#include "backends/op_table.h"
#include "backends/ref/ref_backend.h"

namespace ig {

// How messages name the library: "domain 'x' has no {domains} mapping", "no {ops} mapping for Y".
struct LibraryNames {
  std::string domains;
  std::string ops;
};

class LibraryBackend : public Backend {
 public:
  // `platform` is the platform's name, "+ref" added when it falls back to the reference kernels.
  LibraryBackend(std::string platform, LibraryNames names)
      : platform_(std::move(platform)), names_(std::move(names)) {}
  std::string name() const final { return fallback_ref() ? platform_ + "+ref" : platform_; }
  Status supports(const Node& node, const Model& model) const final;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) final;
  // Ok when the library itself runs the node (data movement: when the reference kernels can);
  // otherwise the reason, the reference fallback aside.
  Status native_support(const Node& node, const Model& model) const;
  // Whether unsupported nodes run on the reference kernels (platform option fallback=ref).
  virtual bool fallback_ref() const = 0;
  // The node's entry in the library's op table (for running a node check_in_table accepted).
  template <typename RunFn>
  Expected<const OpEntry<RunFn>*> table_entry(const std::vector<OpEntry<RunFn>>& table,
                                              const Node& node, const Model& model) const {
    return find_op_entry(table, node.domain, node.op_type, model.opset_for(node.domain),
                         [&] { return no_mapping(node, op_names(table)); });
  }

 protected:
  // The library's own check of a node of the default domain that is not data movement (or of
  // another domain's node that maps_domain_op says it maps).
  virtual Status check_native(const Node& node, const Model& model) const = 0;
  // Whether the library maps a node of a domain other than ai.onnx (its op table's entry).
  virtual bool maps_domain_op(const Node&) const { return false; }
  // Starts a run (reset caches, count convolutions, ...); feeds are already checked.
  virtual std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                                const std::map<std::string, Value>& feeds) = 0;

  // check_native for a library with an op table: the node's entry and its check, or "no {ops}
  // mapping for Y (mapped: ...; data movement: ...)".
  template <typename RunFn>
  Status check_in_table(const std::vector<OpEntry<RunFn>>& table, const Node& node,
                        const Model& model) const {
    return check_op_entry(table, node, model, [&] { return no_mapping(node, op_names(table)); });
  }

 private:
  Status no_mapping(const Node& node, const std::vector<std::string>& mapped) const;

  std::string platform_;
  LibraryNames names_;
  RefBackend ref_;
};

}  // namespace ig
