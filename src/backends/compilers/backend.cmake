# compilers: the deep-learning compilers with only a Python API (OpenVINO, IREE, PyTorch 2's
# torch.compile), each hosted by src/backends/pyrunner/compiler_runner.py in the venv's python.
# Nothing to link.
file(GLOB INFERGAP_COMPILER_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/compilers.cpp)
add_library(infergap_backend_compilers OBJECT ${INFERGAP_COMPILER_SOURCES})
target_link_libraries(infergap_backend_compilers PUBLIC infergap)
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_compilers)
