# `xnnpack`: XNNPACK's operator API (xnn_create_* / xnn_setup_* / xnn_run_operator) per ONNX node.
# Debian: libxnnpack-dev (a 2022-02 snapshot) and libpthreadpool-dev; neither ships a CMake or
# pkg-config file, so the libraries are found directly.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
file(GLOB INFERGAP_XNNPACK_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/xnnpack.cpp)
add_library(infergap_backend_xnnpack OBJECT ${INFERGAP_XNNPACK_SOURCES})
target_include_directories(infergap_backend_xnnpack SYSTEM PUBLIC ${XNNPACK_INCLUDE_DIR})
target_link_libraries(infergap_backend_xnnpack PUBLIC infergap ${XNNPACK_LIBRARY}
  ${PTHREADPOOL_LIBRARY})
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_xnnpack)
