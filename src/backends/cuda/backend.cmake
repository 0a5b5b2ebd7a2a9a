# `cuda`: cuDNN 9 and cuBLAS per ONNX node, in host C++ against the CUDA runtime (no nvcc: every
# operator is a library call, so no CUDA kernels are compiled here). On by default where the
# toolkit and cuDNN are found (/usr/local/cuda on these machines); a machine without a GPU builds
# and lists it, and the worker reports it unavailable at run time.
find_package(CUDAToolkit QUIET)
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
set(INFERGAP_CUDA_FOUND OFF)
if(CUDAToolkit_FOUND AND TARGET CUDA::cudart AND TARGET CUDA::cublas AND CUDNN_INCLUDE_DIR
   AND CUDNN_LIBRARY)
  set(INFERGAP_CUDA_FOUND ON)
endif()
option(INFERGAP_CUDA "Build the cuda backend (CUDA runtime, cuDNN, cuBLAS)" ${INFERGAP_CUDA_FOUND})
if(INFERGAP_CUDA AND NOT INFERGAP_CUDA_FOUND)
  message(FATAL_ERROR "INFERGAP_CUDA=ON but the CUDA toolkit (${CUDAToolkit_FOUND}) or cuDNN "
                      "(cudnn.h: ${CUDNN_INCLUDE_DIR}, libcudnn: ${CUDNN_LIBRARY}) was not found")
endif()
# Without CUDA the backend still exists: its knobs parse and its platforms are listed, each
# unavailable with the reason (platform/bindings/cuda_catalog.cpp); nothing else is compiled.
set(INFERGAP_CUDA_PORTABLE ${CMAKE_CURRENT_LIST_DIR}/cuda_options.cpp ${INFERGAP_BINDINGS_DIR}/cuda_options.cpp
                           ${INFERGAP_BINDINGS_DIR}/cuda_catalog.cpp)
if(NOT INFERGAP_CUDA)
  message(STATUS "cuda backend: off (CUDA toolkit found: ${CUDAToolkit_FOUND}; cudnn.h: "
                 "${CUDNN_INCLUDE_DIR}; libcudnn: ${CUDNN_LIBRARY})")
  add_library(infergap_backend_cuda OBJECT ${INFERGAP_CUDA_PORTABLE})
  target_link_libraries(infergap_backend_cuda PUBLIC infergap)
  list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_cuda)
  return()
endif()
message(STATUS "cuda backend: on (CUDA ${CUDAToolkit_VERSION}, ${CUDNN_LIBRARY})")
file(GLOB INFERGAP_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
     ${INFERGAP_BINDINGS_DIR}/cuda*.cpp)
add_library(infergap_backend_cuda OBJECT ${INFERGAP_CUDA_SOURCES})
# SYSTEM: the CUDA headers are not ours to keep free of warnings.
target_include_directories(infergap_backend_cuda SYSTEM PUBLIC ${CUDNN_INCLUDE_DIR}
                                                               ${CUDAToolkit_INCLUDE_DIRS})
# cuBLAS is opened at run time (cuda_cublas.h): linked, its cuBLASLt would load into every worker.
target_link_libraries(infergap_backend_cuda PUBLIC infergap CUDA::cudart ${CUDNN_LIBRARY}
                                                   ${CMAKE_DL_LIBS})
target_compile_definitions(infergap_backend_cuda PRIVATE
                           INFERGAP_CUDA_LIBDIR="${CUDAToolkit_LIBRARY_DIR}")
# The GPU code and its tests compile only when the backend is built.
target_compile_definitions(infergap_backend_cuda PUBLIC INFERGAP_CUDA_BACKEND=1)
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_cuda)
