# Included right after project(zcast) in the Python package's builds (pyproject.toml sets
# CMAKE_PROJECT_zcast_INCLUDE): someone who runs `pip install zcast-*.tar.gz` without Google
# Highway gets one line naming the system package and how to install it, instead of
# find_package's page about hwyConfig.cmake search paths. The library's own
# find_package(hwy REQUIRED) then finds the same package again from the cache.
find_package(hwy 1.0.3 QUIET)
if(NOT hwy_FOUND)
  # The leading space keeps CMake from wrapping the line.
  message(FATAL_ERROR " zcast needs Google Highway >= 1.0.3 (hwyConfig.cmake not found); "
          "on Debian or Ubuntu: apt-get install libhwy-dev")
endif()
