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

  # The same sources against PyPI's PyTorch wheel in .venv (scripts/setup --tests): today's
  # libtorch beside Debian's, as torch:version=2.15. The wheel's TorchConfig.cmake insists on a CUDA
  # toolkit, so its headers and its CPU libraries are named directly; libtorch_cpu finds the CUDA
  # runtime it links (and never calls without a GPU) in the NVIDIA wheels through its own RPATH.
  file(GLOB INFERGAP_TORCH_WHEEL ${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/torch)
  if(INFERGAP_TORCH_WHEEL AND EXISTS ${INFERGAP_TORCH_WHEEL}/lib/libtorch_cpu.so)
    add_library(infergap_torch_wheel MODULE ${INFERGAP_TORCH_MODULE_SOURCES})
    target_include_directories(infergap_torch_wheel PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_include_directories(infergap_torch_wheel SYSTEM PRIVATE ${INFERGAP_TORCH_WHEEL}/include
      ${INFERGAP_TORCH_WHEEL}/include/torch/csrc/api/include
      $<TARGET_PROPERTY:infergap,INTERFACE_INCLUDE_DIRECTORIES>)
    # The wheel's include folder carries its own fmt (12), ahead of Debian's (9) for this module:
    # the module uses it header-only instead of linking Debian's libfmt. fmt keeps each version in
    # its own inline namespace, so the two never meet in a worker.
    target_compile_definitions(infergap_torch_wheel PRIVATE
      $<FILTER:$<TARGET_PROPERTY:infergap,INTERFACE_COMPILE_DEFINITIONS>,EXCLUDE,^FMT_SHARED$>
      FMT_HEADER_ONLY=1 _GLIBCXX_USE_CXX11_ABI=1)
    target_link_libraries(infergap_torch_wheel PRIVATE ${INFERGAP_TORCH_WHEEL}/lib/libtorch_cpu.so
      ${INFERGAP_TORCH_WHEEL}/lib/libc10.so nlohmann_json::nlohmann_json)
    set_target_properties(infergap_torch_wheel PROPERTIES PREFIX "lib"
      OUTPUT_NAME infergap_torch_wheel)
    target_compile_definitions(infergap_backend_torch PRIVATE
      INFERGAP_TORCH_WHEEL_MODULE="$<TARGET_FILE:infergap_torch_wheel>")
    add_dependencies(infergap_backend_torch infergap_torch_wheel)
  endif()
  list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_torch)
  set(INFERGAP_HAVE_TORCH ON)
else()
  infergap_unbuilt_backend(torch libtorch-dev
    "libtorch's CMake config (TorchConfig.cmake) not found")
endif()
