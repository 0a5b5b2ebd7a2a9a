# `opencv`: OpenCV 4.6 DNN. Debian: libopencv-dnn-dev (the DNN and core modules only; it ships no
# CMake config, so the libraries are found directly).
find_path(OPENCV_INCLUDE_DIR opencv2/dnn.hpp PATH_SUFFIXES opencv4 REQUIRED)
find_library(OPENCV_DNN_LIBRARY opencv_dnn REQUIRED)
find_library(OPENCV_CORE_LIBRARY opencv_core REQUIRED)
file(GLOB INFERGAP_OPENCV_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/opencv.cpp)
add_library(infergap_backend_opencv OBJECT ${INFERGAP_OPENCV_SOURCES})
target_include_directories(infergap_backend_opencv SYSTEM PUBLIC ${OPENCV_INCLUDE_DIR})
target_link_libraries(infergap_backend_opencv PUBLIC infergap ${OPENCV_DNN_LIBRARY}
  ${OPENCV_CORE_LIBRARY})
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_opencv)
