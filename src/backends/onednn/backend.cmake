# `onednn`: oneDNN 2.6 primitives per ONNX node. Debian: libdnnl-dev (OpenMP build). Its CMake
# config insists on OpenCL development files for the GPU runtime we do not use, so the library is
# found directly.
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
find_package(OpenMP QUIET COMPONENTS CXX)
if(NOT DNNL_INCLUDE_DIR OR NOT DNNL_LIBRARY OR NOT OpenMP_CXX_FOUND)
  infergap_unbuilt_backend(onednn libdnnl-dev
    "dnnl.hpp: ${DNNL_INCLUDE_DIR}; libdnnl: ${DNNL_LIBRARY}; OpenMP: ${OpenMP_CXX_FOUND}")
  return()
endif()
file(GLOB INFERGAP_ONEDNN_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/onednn.cpp)
add_library(infergap_backend_onednn OBJECT ${INFERGAP_ONEDNN_SOURCES})
target_include_directories(infergap_backend_onednn SYSTEM PUBLIC ${DNNL_INCLUDE_DIR})
target_link_libraries(infergap_backend_onednn PUBLIC infergap ${DNNL_LIBRARY} OpenMP::OpenMP_CXX)
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_onednn)
