# Defines the imported target ember::cudnn. Looks in CUDNN_ROOT (a cuDNN
# install, or the folder of the nvidia-cudnn Python package), then next to the
# CUDA toolkit, then in the system paths.
if(TARGET ember::cudnn)
  return()
endif()
set(_ember_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${_ember_cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS}
          PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 HINTS ${_ember_cudnn_hints} ${CUDAToolkit_LIBRARY_DIR}
             PATH_SUFFIXES lib lib64 lib/x64)
if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
  message(FATAL_ERROR "cuDNN not found: pass -DCUDNN_ROOT=<folder with include/cudnn.h and lib/libcudnn.so> "
                      "or build with -DEMBER_CUDA=OFF")
endif()
# Imported, so that install(EXPORT) names it instead of exporting it: an
# installed emberConfig.cmake runs this file again to find cuDNN there.
add_library(ember::cudnn INTERFACE IMPORTED)
target_include_directories(ember::cudnn INTERFACE ${CUDNN_INCLUDE_DIR})
target_link_libraries(ember::cudnn INTERFACE ${CUDNN_LIBRARY})
message(STATUS "ember: cuDNN ${CUDNN_LIBRARY}")
