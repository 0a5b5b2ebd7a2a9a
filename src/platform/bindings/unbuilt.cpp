// A backend whose library was missing at configure time (cmake/unbuilt_backend.cmake): it still
// exists, so that `infergap platforms` lists it as unavailable with the Debian package that
// provides it, and a study naming it fails with that reason instead of "unknown backend".
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"

#if !defined(INFERGAP_UNBUILT_BACKEND) || !defined(INFERGAP_UNBUILT_PACKAGES)
#error "unbuilt.cpp needs INFERGAP_UNBUILT_BACKEND and INFERGAP_UNBUILT_PACKAGES"
#endif

namespace ig {
namespace {

Expected<std::unique_ptr<Backend>> make_unbuilt(const PlatformSpec& spec) {
  return unsupported(
      "platform '{}': this infergap was built without the {} backend: install {} "
      "(scripts/setup --all installs every optional library), then configure again "
      "(cmake -S . -B build) and run scripts/build",
      spec.to_string(), INFERGAP_UNBUILT_BACKEND, INFERGAP_UNBUILT_PACKAGES);
}

const BackendRegistrar kUnbuiltRegistrar(BackendFactory{
    INFERGAP_UNBUILT_BACKEND, std::string("not built here: install ") + INFERGAP_UNBUILT_PACKAGES,
    make_unbuilt, nullptr});

const CandidateRegistrar kUnbuiltCandidates(INFERGAP_UNBUILT_BACKEND, [] {
  return std::vector<PlatformCandidate>{
      {INFERGAP_UNBUILT_BACKEND, {}, std::string("needs ") + INFERGAP_UNBUILT_PACKAGES, false}};
});

}  // namespace
}  // namespace ig
