# infergap_unbuilt_backend(NAME PACKAGES WHY): a backend whose library is missing still builds
# (src/platform/bindings/unbuilt.cpp), so the worker lists its platform as unavailable with the
# Debian package to install, rather than the configure failing. WHY goes to the configure log.
function(infergap_unbuilt_backend name packages why)
  message(STATUS "${name} backend: off (${why}); install ${packages} and configure again "
                 "to build it")
  add_library(infergap_backend_${name} OBJECT ${INFERGAP_BINDINGS_DIR}/unbuilt.cpp)
  target_link_libraries(infergap_backend_${name} PUBLIC infergap)
  target_compile_definitions(infergap_backend_${name} PRIVATE
    INFERGAP_UNBUILT_BACKEND="${name}" INFERGAP_UNBUILT_PACKAGES="${packages}")
  set(INFERGAP_WORKER_BACKENDS ${INFERGAP_WORKER_BACKENDS} infergap_backend_${name} PARENT_SCOPE)
endfunction()
