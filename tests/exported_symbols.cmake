# Checks the dynamic symbol table of the shared libzcast (LIBRARY) against EXPECTED
# (exported_symbols.txt: one demangled name a line, the C API of zcast.h and the C++ API of
# zcast.hpp): a symbol exported but not listed fails, and so does one listed but not exported.
# A rule holds whatever the list says: every exported name is a zcast_* C function or in
# namespace zcast, and none is Highway's, the standard library's or zcast's internals. The SONAME
# must be SONAME (libzcast.so.<major>). Fails (FATAL_ERROR) on any difference.
execute_process(COMMAND ${NM} -D --defined-only --demangle ${LIBRARY}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D failed (${rc}): ${err}")
endif()
# Lines are "<address> <type letter> <name>"; the name may contain spaces (C++ signatures).
string(REPLACE ";" "\\;" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(exported)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]+ [A-Za-z] (.+)$")
    list(APPEND exported "${CMAKE_MATCH_1}")
  elseif(NOT line STREQUAL "")
    message(FATAL_ERROR "unexpected nm output line: ${line}")
  endif()
endforeach()
list(SORT exported)
list(LENGTH exported n_exported)

file(STRINGS ${EXPECTED} expected_lines)
set(expected)
foreach(line IN LISTS expected_lines)
  if(NOT line MATCHES "^#" AND NOT line STREQUAL "")
    list(APPEND expected "${line}")
  endif()
endforeach()

set(failures "")
foreach(name IN LISTS exported)
  if(NOT name MATCHES "^zcast_[a-z0-9_]+$" AND NOT name MATCHES "^(typeinfo( name)? for |vtable for )?zcast::")
    string(APPEND failures "outside the public namespaces: ${name}\n")
  endif()
  # The name before the parameter list: std:: in a public function's parameter types is fine.
  string(REGEX REPLACE "\\(.*$" "" qualified "${name}")
  if(qualified MATCHES "(^|::)(internal|N_[A-Z0-9_]+|State|hwy|std)::")
    string(APPEND failures "an implementation symbol: ${name}\n")
  endif()
  if(NOT name IN_LIST expected)
    string(APPEND failures "exported but not in exported_symbols.txt: ${name}\n")
  endif()
endforeach()
foreach(name IN LISTS expected)
  if(NOT name IN_LIST exported)
    string(APPEND failures "in exported_symbols.txt but not exported: ${name}\n")
  endif()
endforeach()

execute_process(COMMAND readelf -d ${LIBRARY} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dynamic MATCHES "\\(SONAME\\)[^\n]*\\[([^]\n]*)\\]")
  string(APPEND failures "no SONAME in ${LIBRARY}\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL SONAME OR NOT CMAKE_MATCH_1 MATCHES "^libzcast\\.so\\.[0-9]+$")
  string(APPEND failures "SONAME is ${CMAKE_MATCH_1}, expected ${SONAME}\n")
endif()

if(failures)
  message(FATAL_ERROR "${LIBRARY}: ${n_exported} exported symbols\n${failures}")
endif()
message(STATUS "${LIBRARY}: SONAME ${SONAME}, ${n_exported} exported symbols, all in ${EXPECTED}")
