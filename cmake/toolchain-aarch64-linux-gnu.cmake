# Cross build for 64-bit ARM Linux on a Debian x86-64 machine (scripts/test-arm, docs/design.md
# "ARM"). Needs Debian's g++-aarch64-linux-gnu, the arm64 multiarch libraries (libhwy-dev:arm64,
# libgtest-dev:arm64 in /usr/lib/aarch64-linux-gnu, their headers in /usr/include) and, to run what
# it builds, qemu-user-static: ctest then runs every test through CMAKE_CROSSCOMPILING_EMULATOR.
#
#   cmake -S . -B build/aarch64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
#
# The emulated CPU is qemu's environment variable QEMU_CPU (its -cpu; unset: `max`, SVE2 at 512
# bits), e.g. `QEMU_CPU=max,sve=off ctest` for NEON only; scripts/test-arm runs three.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ZCAST_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ZCAST_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ZCAST_CROSS_TRIPLE}-g++)
# The cross libc and libstdc++ (libc6-dev-arm64-cross) live under /usr/aarch64-linux-gnu; the
# multiarch packages (:arm64) put their libraries in /usr/lib/aarch64-linux-gnu and their CMake
# package files in /usr/lib/aarch64-linux-gnu/cmake, which find_package and find_library search
# under the root "/" as <prefix>/lib/${CMAKE_LIBRARY_ARCHITECTURE}. Host (x86-64) libraries sit in
# /usr/lib/x86_64-linux-gnu and are never searched (zlib1g-dev, say, is then not found: fine).
set(CMAKE_FIND_ROOT_PATH /usr/${ZCAST_CROSS_TRIPLE} /)
set(CMAKE_LIBRARY_ARCHITECTURE ${ZCAST_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(ZCAST_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(ZCAST_QEMU_AARCH64)
  # -L: the dynamic loader and the cross libc/libstdc++; libraries not found under it (libhwy.so.1
  # in /usr/lib/aarch64-linux-gnu) are found at their real paths.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ZCAST_QEMU_AARCH64} -L /usr/${ZCAST_CROSS_TRIPLE})
endif()
