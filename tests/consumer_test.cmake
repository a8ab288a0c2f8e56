# Configures, builds and runs a consumer project (CONSUMER_SOURCE_DIR: tests/consumer in C++,
# tests/consumer_c in C alone) against an installed zcast, and checks how each of its programs is
# linked: `consumer` through zcast::zcast needs libzcast.so.<SOVERSION> when the shared library is
# installed, `consumer_static` through zcast::zcast_static does not need it at all.
# The installed zcast is either the build tree ZCAST_BUILD_DIR installed into WORK_DIR/prefix, or
# PREFIX as it is (e.g. /usr after `apt-get install ./dist/*.deb`: scripts/test-deb; LIBDIR then
# names its library directory).
# Fails (FATAL_ERROR) on any step.
file(REMOVE_RECURSE ${WORK_DIR})
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
if(ZCAST_BUILD_DIR)
  set(PREFIX ${WORK_DIR}/prefix)
  run(ignored ${CMAKE_COMMAND} --install ${ZCAST_BUILD_DIR} --prefix ${PREFIX})
endif()
if(NOT PREFIX)
  message(FATAL_ERROR "consumer_test.cmake needs ZCAST_BUILD_DIR or PREFIX")
endif()
find_program(READELF NAMES readelf REQUIRED)
# The library directory of this install (LIBDIR, or where zcastConfig.cmake sits, two levels up).
if(LIBDIR)
  set(libdir ${LIBDIR})
else()
  file(GLOB_RECURSE config_files ${PREFIX}/*/cmake/zcast/zcastConfig.cmake)
  list(LENGTH config_files n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "expected one zcastConfig.cmake under ${PREFIX}, found: ${config_files}")
  endif()
  get_filename_component(libdir ${config_files} DIRECTORY)
  get_filename_component(libdir ${libdir}/../.. ABSOLUTE)
endif()
file(GLOB shared_libs ${libdir}/libzcast.so.*)

run(out ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
run(out ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(program consumer consumer_static)
  run(dynamic ${READELF} -d ${WORK_DIR}/build/${program})
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
  message(STATUS "${program}: ${needed}")
  if(program STREQUAL "consumer_static")
    if(needed MATCHES "libzcast")
      message(FATAL_ERROR "${program} should link libzcast.a but needs a shared libzcast")
    endif()
  elseif(shared_libs AND NOT needed MATCHES "\\[libzcast\\.so\\.[0-9]+\\]")
    message(FATAL_ERROR "${program} should need libzcast.so.<SOVERSION> (installed: ${shared_libs})")
  endif()
  # The build tree's RPATH finds a scratch prefix's library; LD_LIBRARY_PATH covers an extracted one.
  run(printed ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${WORK_DIR}/build/${program})
  message(STATUS "${program}: ${printed}")
endforeach()
