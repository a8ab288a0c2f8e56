# The LLVM APFloat oracle tests (tests/oracle_test.cc, oracle_rules_test.cc, oracle_driver.h,
# apfloat_model.h, reference_model.h).
# Included from tests/CMakeLists.txt when ZCAST_BUILD_ORACLE_TESTS is ON. Needs LLVM >= 19 (the
# first release whose APFloat has Float8E4M3, Float6E3M2FN, Float6E2M3FN and Float4E2M1FN) and
# GoogleTest. Debian 12: apt-get install llvm-19-dev libgtest-dev.

if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)

# LLVM's package version file accepts only the same major.minor, so ask without a version and
# check the major ourselves. LLVM_DIR overrides the search.
find_package(LLVM CONFIG REQUIRED
  HINTS /usr/lib/llvm-19/lib/cmake/llvm /usr/lib/llvm/19/lib/cmake/llvm)
if(LLVM_VERSION_MAJOR VERSION_LESS 19)
  message(FATAL_ERROR "zcast_oracle_tests needs LLVM >= 19 (found ${LLVM_PACKAGE_VERSION} in "
                      "${LLVM_DIR}); set LLVM_DIR or turn ZCAST_BUILD_ORACLE_TESTS off")
endif()
message(STATUS "zcast oracle tests: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

add_executable(zcast_oracle_tests ${CMAKE_CURRENT_LIST_DIR}/oracle_test.cc
                                  ${CMAKE_CURRENT_LIST_DIR}/oracle_rules_test.cc)
target_include_directories(zcast_oracle_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_include_directories(zcast_oracle_tests SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
target_compile_options(zcast_oracle_tests PRIVATE -Wall -Wextra)

# The test calls the engine's internal functions (zcast::internal::CastBits), which a shared
# libzcast does not export (hidden visibility). Against a shared build, link the library's object
# files into the test directly: hidden symbols resolve normally inside one executable.
get_target_property(_zcast_oracle_lib_type zcast TYPE)
if(_zcast_oracle_lib_type STREQUAL "SHARED_LIBRARY")
  target_sources(zcast_oracle_tests PRIVATE $<TARGET_OBJECTS:zcast>)
  target_include_directories(zcast_oracle_tests PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(zcast_oracle_tests PRIVATE $<TARGET_PROPERTY:zcast,LINK_LIBRARIES>)
else()
  target_link_libraries(zcast_oracle_tests PRIVATE zcast)
endif()

# Prefer the LLVM shared library when the installation provides it (Debian does): the static
# LLVMSupport target's interface names zstd::libzstd_shared, which only exists when the zstd
# development package is installed.
if(TARGET LLVM)
  target_link_libraries(zcast_oracle_tests PRIVATE LLVM)
else()
  llvm_map_components_to_libnames(_zcast_oracle_llvm_libs support)
  target_link_libraries(zcast_oracle_tests PRIVATE ${_zcast_oracle_llvm_libs})
endif()
target_link_libraries(zcast_oracle_tests PRIVATE GTest::gtest_main)

# One ctest entry per test (the exhaustive part is sharded per source type), so that
# `ctest -j` spreads the work. DISCOVERY_TIMEOUT: listing the tests loads libLLVM.
gtest_discover_tests(zcast_oracle_tests
  TEST_PREFIX "oracle."
  DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS oracle TIMEOUT 600)
