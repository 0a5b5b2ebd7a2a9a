# `xnnpack`: XNNPACK's operator API (xnn_create_* / xnn_setup_* / xnn_run_operator) per ONNX node.
# Debian: libxnnpack-dev (a 2022-02 snapshot) and libpthreadpool-dev; neither ships a CMake or
# pkg-config file, so the libraries are found directly.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY XNNPACK)
find_library(PTHREADPOOL_LIBRARY pthreadpool)
if(NOT XNNPACK_INCLUDE_DIR OR NOT XNNPACK_LIBRARY OR NOT PTHREADPOOL_LIBRARY)
  infergap_unbuilt_backend(xnnpack "libxnnpack-dev libpthreadpool-dev"
    "xnnpack.h: ${XNNPACK_INCLUDE_DIR}; libXNNPACK: ${XNNPACK_LIBRARY}; "
    "libpthreadpool: ${PTHREADPOOL_LIBRARY}")
  return()
endif()
file(GLOB INFERGAP_XNNPACK_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/xnnpack.cpp)
add_library(infergap_backend_xnnpack OBJECT ${INFERGAP_XNNPACK_SOURCES})
target_include_directories(infergap_backend_xnnpack SYSTEM PUBLIC ${XNNPACK_INCLUDE_DIR})
target_link_libraries(infergap_backend_xnnpack PUBLIC infergap ${XNNPACK_LIBRARY}
  ${PTHREADPOOL_LIBRARY})
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_xnnpack)
