# Finds libudunits2 (units for --units) and defines the imported target udunits2::udunits2.
find_path(udunits2_INCLUDE_DIR NAMES udunits2.h)
find_library(udunits2_LIBRARY NAMES udunits2)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(udunits2 REQUIRED_VARS udunits2_LIBRARY udunits2_INCLUDE_DIR)
mark_as_advanced(udunits2_INCLUDE_DIR udunits2_LIBRARY)
if(udunits2_FOUND AND NOT TARGET udunits2::udunits2)
  add_library(udunits2::udunits2 UNKNOWN IMPORTED)
  set_target_properties(udunits2::udunits2 PROPERTIES
    IMPORTED_LOCATION "${udunits2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${udunits2_INCLUDE_DIR}")
endif()
