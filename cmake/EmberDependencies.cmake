# Finds what ember builds against: Eigen, threads, and (optionally)
# the CUDA toolkit with cuBLAS and cuDNN, and Gloo for ember::distributed.
# Sets EMBER_WITH_CUDA and EMBER_WITH_DISTRIBUTED.
find_package(Threads REQUIRED)
# zlib is optional so that a GPU machine without Debian packages still builds.
find_package(ZLIB QUIET)
set(EMBER_WITH_ZLIB ${ZLIB_FOUND})

find_package(Eigen3 3.3 QUIET NO_MODULE)
if(NOT TARGET Eigen3::Eigen)
  # A machine without Debian's libeigen3-dev (the GPU machine): headers copied
  # into EMBER_THIRD_PARTY_DIR/eigen3 by scripts/vendor-headers.sh.
  find_path(EMBER_EIGEN_INCLUDE_DIR Eigen/Core
            HINTS ${EMBER_THIRD_PARTY_DIR}/eigen3 /usr/include/eigen3 REQUIRED)
  add_library(Eigen3::Eigen INTERFACE IMPORTED)
  target_include_directories(Eigen3::Eigen INTERFACE ${EMBER_EIGEN_INCLUDE_DIR})
endif()

set(EMBER_WITH_CUDA OFF)
if(NOT EMBER_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    # nvcc on the PATH, else where the CUDA installer puts it (CMake looks only on the PATH).
    find_program(EMBER_NVCC nvcc PATHS /usr/local/cuda/bin)
    if(EMBER_NVCC)
      set(CMAKE_CUDA_COMPILER ${EMBER_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # one architecture keeps CI builds fast; override freely
    endif()
    enable_language(CUDA)
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      # CMake before 3.26 does not know nvcc's C++20 flag (nvcc >= 12 has it).
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    include(EmberFindCudnn)
    set(EMBER_WITH_CUDA ON)
  elseif(EMBER_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_CUDA=ON but no CUDA compiler/toolkit was found")
  endif()
endif()
message(STATUS "ember: CUDA backend ${EMBER_WITH_CUDA}")
# Gloo (Debian's libgloo-dev: CMake config in /usr/share/cmake/Gloo, target gloo)
# for distributed/; only ember_distributed links it.
set(EMBER_WITH_DISTRIBUTED OFF)
if(NOT EMBER_DISTRIBUTED STREQUAL "OFF")
  find_package(Gloo CONFIG QUIET)
  if(TARGET gloo)
    set(EMBER_WITH_DISTRIBUTED ON)
  elseif(EMBER_DISTRIBUTED STREQUAL "ON")
    message(FATAL_ERROR "EMBER_DISTRIBUTED=ON but Gloo was not found (install libgloo-dev: scripts/setup.sh)")
  endif()
endif()
message(STATUS "ember: distributed ${EMBER_WITH_DISTRIBUTED}")
