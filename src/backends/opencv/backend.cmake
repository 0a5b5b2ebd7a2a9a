# `opencv`: OpenCV 4.6 DNN. Debian: libopencv-dnn-dev (the DNN and core modules only; it ships no
# CMake config, so the libraries are found directly).
find_path(OPENCV_DNN_INCLUDE_DIR opencv2/dnn.hpp PATH_SUFFIXES opencv4)
find_library(OPENCV_DNN_LIBRARY opencv_dnn)
find_library(OPENCV_CORE_LIBRARY opencv_core)
if(NOT OPENCV_DNN_INCLUDE_DIR OR NOT OPENCV_DNN_LIBRARY OR NOT OPENCV_CORE_LIBRARY)
  infergap_unbuilt_backend(opencv libopencv-dnn-dev
    "opencv2/dnn.hpp: ${OPENCV_DNN_INCLUDE_DIR}; libopencv_dnn: ${OPENCV_DNN_LIBRARY}")
  return()
endif()
file(GLOB INFERGAP_OPENCV_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp
  ${INFERGAP_BINDINGS_DIR}/opencv.cpp)
add_library(infergap_backend_opencv OBJECT ${INFERGAP_OPENCV_SOURCES})
target_include_directories(infergap_backend_opencv SYSTEM PUBLIC ${OPENCV_DNN_INCLUDE_DIR})
target_link_libraries(infergap_backend_opencv PUBLIC infergap ${OPENCV_DNN_LIBRARY}
  ${OPENCV_CORE_LIBRARY})
list(APPEND INFERGAP_WORKER_BACKENDS infergap_backend_opencv)
