# CPack: two Debian packages from the install components (scripts/package-deb builds them).
#   libzcast<SOVERSION>  the shared library libzcast.so.<SOVERSION> and its real file; Depends
#                        computed by dpkg-shlibdeps (libc6, libstdc++6, libgcc-s1, libhwy1);
#   libzcast-dev         headers, libzcast.a, the libzcast.so link, zcastConfig.cmake and its
#                        version and targets files, zcast.pc; Depends on the runtime package of
#                        the same version and on libhwy-dev (the archive and zcast.pc need it).
# Configure with -DCMAKE_INSTALL_PREFIX=/usr, so that GNUInstallDirs picks Debian's multiarch
# libdir (lib/x86_64-linux-gnu) and the .pc and CMake files name the paths the packages use.
set(ZCAST_DEB_RUNTIME_PACKAGE "libzcast${PROJECT_VERSION_MAJOR}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "zcast")
set(CPACK_PACKAGE_VENDOR "zcast")
set(CPACK_PACKAGE_CONTACT "zcast maintainers <zcast@localhost>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "exact Zarr v3 cast_value and scale_offset codecs (C and C++ API)")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION "libs")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "${ZCAST_DEB_RUNTIME_PACKAGE}")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "exact Zarr v3 cast_value and scale_offset codecs, shared library
zcast converts Zarr chunks between the 26 numeric types of cast_value (int2 to float64,
bfloat16, the float8/6/4 formats) in every rounding mode, exactly, with SIMD kernels chosen
at run time. This package holds the shared library (the C API of zcast.h and the C++ API of
zcast.hpp).")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# DEBIAN/shlibs: a package linking libzcast.so.N then depends on this version or later.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME "libzcast-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION "libdevel")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "exact Zarr v3 cast_value and scale_offset codecs, development files
Headers (zcast/zcast.h for C, zcast/zcast.hpp for C++20), the static library, and the files
for find_package(zcast) (targets zcast::zcast, zcast::zcast_shared, zcast::zcast_static) and
pkg-config (zcast.pc).")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${ZCAST_DEB_RUNTIME_PACKAGE} (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}), libhwy-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
include(CPack)
