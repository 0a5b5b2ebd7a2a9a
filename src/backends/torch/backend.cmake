# `torch`: PyTorch's ATen kernels per ONNX node. Debian: libtorch-dev (1.13, CPU). The ATen code
# is a MODULE (libinfergap_torch.so) that the binding dlopens: linking libtorch into the worker
# made every worker start about 0.7 s slower and 100 MB larger, torch platform or not. The module
# takes infergap's symbols from the executable that loads it (ENABLE_EXPORTS on the worker and
# the backend tests), so it links nothing of infergap itself.
find_package(Torch CONFIG QUIET)
if(Torch_FOUND)
  file(GLOB INFERGAP_TORCH_MODULE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
  add_library(infergap_torch MODULE ${INFERGAP_TORCH_MODULE_SOURCES})
  target_include_directories(infergap_torch PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(infergap_torch SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS}
    $<TARGET_PROPERTY:infergap,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(infergap_torch PRIVATE
    $<TARGET_PROPERTY:infergap,INTERFACE_COMPILE_DEFINITIONS>)
  target_link_libraries(infergap_torch PRIVATE ${TORCH_LIBRARIES} fmt::fmt nlohmann_json::nlohmann_json)
  set_target_properties(infergap_torch PROPERTIES PREFIX "lib" OUTPUT_NAME infergap_torch)

  add_library(infergap_backend_torch OBJECT ${INFERGAP_BINDINGS_DIR}/torch.cpp)
  target_link_libraries(infergap_backend_torch PUBLIC infergap ${CMAKE_DL_LIBS})
  target_compile_definitions(infergap_backend_torch PRIVATE
    INFERGAP_TORCH_MODULE="$<TARGET_FILE:infergap_torch>")
  add_dependencies(infergap_backend_torch infergap_torch)
  list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_torch)
  set(INFERGAP_HAVE_TORCH ON)
else()
  infergap_unbuilt_backend(torch libtorch-dev
    "libtorch's CMake config (TorchConfig.cmake) not found")
endif()
