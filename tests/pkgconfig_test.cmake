# Installs the built zcast into WORK_DIR/prefix, then compiles and links a C program with only
# `pkg-config --cflags --libs zcast` (and once more with --static), and runs it. Fails
# (FATAL_ERROR) on any step.
file(REMOVE_RECURSE ${WORK_DIR})
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
run(ignored ${CMAKE_COMMAND} --install ${ZCAST_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
file(GLOB_RECURSE pc_files ${WORK_DIR}/prefix/*/zcast.pc)
list(LENGTH pc_files n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one installed zcast.pc, found: ${pc_files}")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)
foreach(mode shared static)
  set(flags --cflags --libs)
  if(mode STREQUAL "static")
    list(APPEND flags --static)
  endif()
  # PKG_CONFIG_PATH puts the scratch install first; the system's default directories stay
  # searched, because zcast.pc requires the modules of its private dependencies (libhwy.pc).
  run(pc_flags ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
      ${PKG_CONFIG} ${flags} zcast)
  message(STATUS "pkg-config ${flags} zcast: ${pc_flags}")
  separate_arguments(pc_list UNIX_COMMAND "${pc_flags}")
  run(ignored ${C_COMPILER} -std=c99 -o ${WORK_DIR}/pc_consumer_${mode} ${SOURCE} ${pc_list})
  run(printed ${WORK_DIR}/pc_consumer_${mode})
  message(STATUS "${printed}")
endforeach()
