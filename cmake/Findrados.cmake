# Finds librados with its C++ header (Debian: librados-dev + libradospp-dev; librados.hpp is only
# in the latter) and defines rados::rados. Only storage/rados/ links it.
find_path(rados_INCLUDE_DIR NAMES rados/librados.hpp)
find_library(rados_LIBRARY NAMES rados)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(rados REQUIRED_VARS rados_LIBRARY rados_INCLUDE_DIR)
mark_as_advanced(rados_INCLUDE_DIR rados_LIBRARY)
if(rados_FOUND AND NOT TARGET rados::rados)
  add_library(rados::rados UNKNOWN IMPORTED)
  set_target_properties(rados::rados PROPERTIES
    IMPORTED_LOCATION "${rados_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${rados_INCLUDE_DIR}")
endif()
