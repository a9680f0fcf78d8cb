# ember_precompile_headers(target header...): every C++ source of `target`
# starts from one precompiled header holding `header...` (CMake applies it to
# C++ only; .cu files compile as before), so those headers are parsed once per
# target rather than once per file. GCC loses the `diagnostic ignored` pragma
# of ArrayRef's braced-list constructor when the header comes from a PCH,
# hence -Wno-init-list-lifetime; ccache caches objects built with a PCH only
# when told to tolerate it.
function(ember_precompile_headers target)
  target_precompile_headers(${target} PRIVATE ${ARGN})
  target_compile_options(${target} PRIVATE
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-init-list-lifetime>)
  if(CCACHE_PROGRAM)
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros;${CCACHE_PROGRAM}")
  endif()
endfunction()
