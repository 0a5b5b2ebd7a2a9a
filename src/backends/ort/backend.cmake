# ort: ONNX Runtime from the npm package onnxruntime-node, driven through runner.js by node.js.
# Nothing to link: the worker starts `node runner.js`, which loads ORT's shared library.
file(GLOB INFERGAP_ORT_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/ort.cpp)
add_library(infergap_backend_ort OBJECT ${INFERGAP_ORT_SOURCES})
target_link_libraries(infergap_backend_ort PUBLIC infergap)
target_compile_definitions(infergap_backend_ort PRIVATE
  INFERGAP_ORT_RUNNER="${CMAKE_CURRENT_LIST_DIR}/runner.js"
  INFERGAP_NODE_MODULES="${PROJECT_SOURCE_DIR}/node_modules")
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_ort)
