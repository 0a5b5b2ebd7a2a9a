# `cuda`: cuDNN 9 and cuBLAS per ONNX node, in host C++ against the CUDA runtime (no nvcc: every
# operator is a library call, so no CUDA kernels are compiled here). On by default where the
# toolkit and cuDNN are found: a CUDA toolkit (/usr/local/cuda), else the headers and libraries of
# PyPI's NVIDIA wheels that scripts/setup --tests puts in .venv (PyTorch's dependencies: CUDA 13's
# runtime and cuBLAS, cuDNN 9). A machine without a GPU builds and lists it, and the worker reports
# it unavailable at run time.
find_package(CUDAToolkit QUIET)
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
set(INFERGAP_CUDA_FOUND OFF)
if(CUDAToolkit_FOUND AND TARGET CUDA::cudart AND TARGET CUDA::cublas AND CUDNN_INCLUDE_DIR
   AND CUDNN_LIBRARY)
  set(INFERGAP_CUDA_FOUND ON)
  set(INFERGAP_CUDA_INCLUDE_DIRS ${CUDNN_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  set(INFERGAP_CUDA_LINK CUDA::cudart ${CUDNN_LIBRARY})
  set(INFERGAP_CUDA_LIB_DIR ${CUDAToolkit_LIBRARY_DIR})
  set(INFERGAP_CUDA_FROM "CUDA ${CUDAToolkit_VERSION}, ${CUDNN_LIBRARY}")
else()
  # The wheels ship versioned libraries only (libcudart.so.13): they are named as such.
  file(GLOB INFERGAP_NVIDIA_WHEELS ${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/nvidia)
  if(INFERGAP_NVIDIA_WHEELS)
    find_path(WHEEL_CUDA_INCLUDE cuda_runtime.h PATHS ${INFERGAP_NVIDIA_WHEELS}/cu13/include NO_DEFAULT_PATH)
    find_path(WHEEL_CUDNN_INCLUDE cudnn.h PATHS ${INFERGAP_NVIDIA_WHEELS}/cudnn/include NO_DEFAULT_PATH)
    find_library(WHEEL_CUDART NAMES libcudart.so.13 PATHS ${INFERGAP_NVIDIA_WHEELS}/cu13/lib NO_DEFAULT_PATH)
    find_library(WHEEL_CUDNN NAMES libcudnn.so.9 PATHS ${INFERGAP_NVIDIA_WHEELS}/cudnn/lib NO_DEFAULT_PATH)
    if(WHEEL_CUDA_INCLUDE AND WHEEL_CUDNN_INCLUDE AND WHEEL_CUDART AND WHEEL_CUDNN)
      set(INFERGAP_CUDA_FOUND ON)
      set(INFERGAP_CUDA_INCLUDE_DIRS ${WHEEL_CUDNN_INCLUDE} ${WHEEL_CUDA_INCLUDE})
      set(INFERGAP_CUDA_LINK ${WHEEL_CUDART} ${WHEEL_CUDNN})
      set(INFERGAP_CUDA_LIB_DIR ${INFERGAP_NVIDIA_WHEELS}/cu13/lib)
      set(INFERGAP_CUDA_FROM "PyPI's NVIDIA wheels in .venv: ${WHEEL_CUDART}, ${WHEEL_CUDNN}")
    endif()
  endif()
endif()
option(INFERGAP_CUDA "Build the cuda backend (CUDA runtime, cuDNN, cuBLAS)" ${INFERGAP_CUDA_FOUND})
if(INFERGAP_CUDA AND NOT INFERGAP_CUDA_FOUND)
  message(FATAL_ERROR "INFERGAP_CUDA=ON but neither a CUDA toolkit (${CUDAToolkit_FOUND}) with "
                      "cuDNN (cudnn.h: ${CUDNN_INCLUDE_DIR}, libcudnn: ${CUDNN_LIBRARY}) nor "
                      "PyPI's NVIDIA wheels in .venv (scripts/setup --tests) were found")
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
message(STATUS "cuda backend: on (${INFERGAP_CUDA_FROM})")
file(GLOB INFERGAP_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
     ${INFERGAP_BINDINGS_DIR}/cuda*.cpp)
add_library(infergap_backend_cuda OBJECT ${INFERGAP_CUDA_SOURCES})
# SYSTEM: the CUDA headers are not ours to keep free of warnings.
target_include_directories(infergap_backend_cuda SYSTEM PUBLIC ${INFERGAP_CUDA_INCLUDE_DIRS})
# cuBLAS is opened at run time (cuda_cublas.h): linked, its cuBLASLt would load into every worker.
target_link_libraries(infergap_backend_cuda PUBLIC infergap ${INFERGAP_CUDA_LINK} ${CMAKE_DL_LIBS})
target_compile_definitions(infergap_backend_cuda PRIVATE
                           INFERGAP_CUDA_LIBDIR="${INFERGAP_CUDA_LIB_DIR}")
# The GPU code and its tests compile only when the backend is built.
target_compile_definitions(infergap_backend_cuda PUBLIC INFERGAP_CUDA_BACKEND=1)
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_cuda)
