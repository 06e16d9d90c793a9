# The Debian package: `cpack -G DEB --config BUILD/CPackConfig.cmake` after a full build
# (docs/design/packaging.md says why CPack; tests/packaging/deb_test.sh checks what it makes).
# One package, gridstore_VERSION_ARCH.deb, holding:
# - everything a plain `cmake --install` installs (component Unspecified): the command, the
#   static libraries, headers and CMake package, the RADOS plugin, the man page and the bash
#   completion;
# - component "deb", which only a system package installs (EXCLUDE_FROM_ALL: `cmake --install`
#   never writes to /etc or /lib/systemd): the Python package in Debian's module folder
#   (python/CMakeLists.txt), and `gridstore serve` as a systemd service with its user and its
#   config in /etc/default/gridstore (docs/serve.md).
# The Python package of a plain install (component python, lib/python3.X) is not in it: one copy.

# Installed under /usr, as Debian packages are. The command looks for the RADOS plugin where the
# build's CMAKE_INSTALL_PREFIX put it (storage/CMakeLists.txt): a package for release is made
# from a build configured with -DCMAKE_INSTALL_PREFIX=/usr (then also lib/<multiarch>).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)  # absolute destinations (/etc/default) land in the package, not on /
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gridstore)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "The GridStore Authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "gridded meteorological data in RocksDB: command, HTTP service, C++ library, Python module")
# The long description (CPack puts the summary above it and indents it).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION  # CPack puts the summary above it and indents it
"GridStore stores forecast runs and reanalyses in compressed blocks and serves any
slice of them fast. This package holds the gridstore command (import, fetch,
extract, and serve: OGC API-EDR over HTTP, with a systemd unit), the static C++
library with its headers and CMake package (find_package(GridStore)), and the
Python module gridstore with its xarray backend.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gridstore_0.2.0_amd64.deb
set(CPACK_STRIP_FILES ON)  # the command, plugin and Python module; archives: deb_staging.cmake
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified deb)

# Dependencies, listed by hand for Debian 12: dpkg-shlibdeps would add librados2 (the RADOS
# plugin links it, and it is loaded only for rados:// stores). tests/packaging/deb_test.sh runs
# dpkg-shlibdeps on the command and the Python module and fails if a package is missing here.
set(deb_depends libc6 libgcc-s1 libstdc++6 librocksdb7.8 libsnappy1v5 liblz4-1 libbz2-1.0
    libzstd1 libxxhash0 zlib1g libpng16-16 libudunits2-0
    libnetcdf19)  # loaded at run time (import and NetCDF output), which most uses need
set(deb_recommends libeccodes0 libproj25 libgeos-c1v5 libdeflate0)  # loaded at run time: GRIB,
                                                  # grid mappings, polygons, parallel inflate
set(deb_suggests librados2  # rados:// stores (the plugin)
    # find_package(GridStore) in an application: GridStoreConfig.cmake's dependencies
    librocksdb-dev libzstd-dev libxxhash-dev libudunits2-dev libeigen3-dev nlohmann-json3-dev)
if(GRIDSTORE_BUILD_PYTHON)
  # The extension module is built for this one Python (its file name says which).
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)$" py ${GRIDSTORE_PYTHON_VERSION})
  math(EXPR py_next "${CMAKE_MATCH_2} + 1")
  list(APPEND deb_depends "python3 (>= ${py})" "python3 (<< ${CMAKE_MATCH_1}.${py_next})"
       python3-numpy)
  list(APPEND deb_recommends python3-xarray)
endif()
list(JOIN deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
list(JOIN deb_recommends ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS)
list(JOIN deb_suggests ", " CPACK_DEBIAN_PACKAGE_SUGGESTS)

# The service (with the command only): unit, config (a conffile: dpkg keeps the admin's edits),
# user, maintainer scripts.
if(GRIDSTORE_BUILD_TOOLS)
  set(GRIDSTORE_SERVE_EXECUTABLE ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/gridstore)
  configure_file(packaging/gridstore-serve.service.in
                 ${PROJECT_BINARY_DIR}/packaging/gridstore-serve.service @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/gridstore-serve.service
          DESTINATION lib/systemd/system COMPONENT deb EXCLUDE_FROM_ALL)
  install(FILES packaging/gridstore.default DESTINATION /etc/default RENAME gridstore
          COMPONENT deb EXCLUDE_FROM_ALL)
  install(FILES packaging/sysusers.conf DESTINATION lib/sysusers.d RENAME gridstore.conf
          COMPONENT deb EXCLUDE_FROM_ALL)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/conffiles
      ${PROJECT_SOURCE_DIR}/packaging/postinst ${PROJECT_SOURCE_DIR}/packaging/prerm
      ${PROJECT_SOURCE_DIR}/packaging/postrm)
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)  # scripts 0755, conffiles 0644

# CPack strips installed targets but not static archives (their symbol tables are needed):
# deb_staging.cmake drops their debug sections (27 MB of package otherwise, 7 MB with).
configure_file(packaging/deb_staging.cmake.in ${PROJECT_BINARY_DIR}/packaging/deb_staging.cmake
               @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_BINARY_DIR}/packaging/deb_staging.cmake)
include(CPack)
