# The viewer's basemap, made at build time (included by gridstore/server/CMakeLists.txt): GSHHG's
# coastlines, lakes and national borders (Debian gmt-gshhg-low, LGPL), simplified by make_basemap
# into ${CMAKE_CURRENT_BINARY_DIR}/basemap.bin, which the viewer embeds and serves as
# /viewer/basemap.bin (docs/viewer.md, "Basemap"). Sets GRIDSTORE_BASEMAP_ASSET.
set(GRIDSTORE_GSHHG_DIR /usr/share/gmt-gshhg CACHE PATH
    "GMT's binned GSHHG files, binned_GSHHS_l.nc and binned_border_l.nc (Debian gmt-gshhg-low)")
set(GRIDSTORE_BASEMAP_TOLERANCE 0.05 CACHE STRING
    "Douglas-Peucker tolerance of the viewer's coastlines and borders, in degrees")
set(gshhg_coast ${GRIDSTORE_GSHHG_DIR}/binned_GSHHS_l.nc)
set(gshhg_border ${GRIDSTORE_GSHHG_DIR}/binned_border_l.nc)
foreach(f ${gshhg_coast} ${gshhg_border})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "The viewer's coastlines and borders are made from GSHHG: ${f} is missing. "
      "Install Debian's gmt-gshhg-low package (scripts/install-deps.sh), or set "
      "GRIDSTORE_GSHHG_DIR to a folder holding its binned_*_l.nc files.")
  endif()
endforeach()

add_executable(gridstore_make_basemap ${CMAKE_CURRENT_SOURCE_DIR}/basemap/make_basemap.cc)
target_link_libraries(gridstore_make_basemap PRIVATE netCDF::netcdf)
gridstore_set_warnings(gridstore_make_basemap)

set(GRIDSTORE_BASEMAP_ASSET ${CMAKE_CURRENT_BINARY_DIR}/basemap.bin)
# Leak detection off: in the ASan build it would report HDF5's buffers kept until exit.
add_custom_command(OUTPUT ${GRIDSTORE_BASEMAP_ASSET}
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
          $<TARGET_FILE:gridstore_make_basemap> ${gshhg_coast} ${gshhg_border}
          ${GRIDSTORE_BASEMAP_TOLERANCE} ${GRIDSTORE_BASEMAP_ASSET}
  DEPENDS gridstore_make_basemap ${gshhg_coast} ${gshhg_border}
  COMMENT "Making the viewer's basemap from GSHHG" VERBATIM)
