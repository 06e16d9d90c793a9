# Finds libzstd and defines the imported target zstd::zstd (the name RocksDB's own module uses, so
# both agree). Debian's libzstd-dev ships a CMake package too, but with other target names.
find_path(zstd_INCLUDE_DIR NAMES zstd.h)
find_library(zstd_LIBRARY NAMES zstd)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(zstd REQUIRED_VARS zstd_LIBRARY zstd_INCLUDE_DIR)
mark_as_advanced(zstd_INCLUDE_DIR zstd_LIBRARY)
if(zstd_FOUND AND NOT TARGET zstd::zstd)
  add_library(zstd::zstd UNKNOWN IMPORTED)
  set_target_properties(zstd::zstd PROPERTIES
    IMPORTED_LOCATION "${zstd_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${zstd_INCLUDE_DIR}")
endif()
