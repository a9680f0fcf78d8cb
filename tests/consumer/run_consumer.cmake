# cmake -P script behind the consumer tests (tests/CMakeLists.txt): builds the
# project in this folder against ember and runs it.
#   MODE=install       installs the already built ember (EMBER_BUILD_DIR) into a
#                      fresh prefix and uses find_package(ember)
#   MODE=subdirectory  builds ember from EMBER_SOURCE_DIR with add_subdirectory
#                      (CPU only, unoptimized -O0 without debug info: the test
#                      is about the CMake wiring, and this halves its time)
# WORK_DIR keeps the consumer's build between runs, so a second run is incremental.
foreach(var MODE EMBER_SOURCE_DIR EMBER_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER BUILD_TYPE JOBS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: pass -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGV} COMMAND_ECHO STDOUT RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test (${MODE}): command failed (${rc})")
  endif()
endfunction()

set(consumer_source ${CMAKE_CURRENT_LIST_DIR})
set(build ${WORK_DIR}/build)
if(MODE STREQUAL "install")
  set(prefix ${WORK_DIR}/prefix)
  file(REMOVE_RECURSE ${prefix})  # only what this install puts there
  run(${CMAKE_COMMAND} --install ${EMBER_BUILD_DIR} --prefix ${prefix})
  set(configure_args -DCMAKE_PREFIX_PATH=${prefix})
elseif(MODE STREQUAL "subdirectory")
  set(configure_args -DEMBER_SOURCE_DIR=${EMBER_SOURCE_DIR} -DEMBER_CUDA=OFF)
  set(BUILD_TYPE Debug)
  list(APPEND configure_args -DCMAKE_CXX_FLAGS_DEBUG=-O0)
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE must be install or subdirectory, not '${MODE}'")
endif()

run(${CMAKE_COMMAND} -S ${consumer_source} -B ${build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} ${configure_args})
run(${CMAKE_COMMAND} --build ${build} --parallel ${JOBS})
run(${build}/consumer)
