# `blas`: the reference backend with GEMM through OpenBLAS or BLIS, loaded at run time with dlopen
# (both export cblas_sgemm, so they must not both be linked). Debian: libopenblas0-pthread,
# libblis4-pthread.
add_library(infergap_backend_blas OBJECT
  ${CMAKE_CURRENT_LIST_DIR}/blas_library.cpp ${INFERGAP_BINDINGS_DIR}/blas.cpp ${INFERGAP_BINDINGS_DIR}/blas_options.cpp)
target_link_libraries(infergap_backend_blas PUBLIC infergap ${CMAKE_DL_LIBS})
if(CMAKE_LIBRARY_ARCHITECTURE)
  target_compile_definitions(infergap_backend_blas PRIVATE
    INFERGAP_LIBDIR="/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_blas)
