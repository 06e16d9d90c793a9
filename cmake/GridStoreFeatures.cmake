# Build features, as FDB5 has them: each optional dependency is ON when it is found, and can be
# turned OFF. A feature OFF compiles a stub in its place that returns Unimplemented with one
# sentence saying how to enable it, so that a RocksDB-only build needs none of these headers and
# still builds and runs everything else (the fourth step of scripts/test.sh builds it).
#   GRIDSTORE_WITH_RADOS   librados (Debian librados-dev, libradospp-dev): rados:// stores
#   GRIDSTORE_WITH_GRIB    ecCodes (libeccodes-dev): GRIB import
#   GRIDSTORE_WITH_GEO     PROJ and GEOS (libproj-dev, libgeos-dev): projected and rotated grids,
#                          polygons
#   GRIDSTORE_WITH_SERVER  Boost.Beast and libpng (libboost-dev, libpng-dev): `gridstore serve`

find_package(rados QUIET)                # cmake/Findrados.cmake -> rados::rados (Ceph)
find_package(eccodes CONFIG QUIET)       # eccodes (GRIB: importers/grib/internal/eccodes_api.h)
find_package(PROJ CONFIG QUIET)          # PROJ::proj (geo/internal/proj_transform.cc)
find_package(GEOS CONFIG QUIET)          # GEOS::geos_c (geo/internal/geos_polygon.cc)
find_package(Boost 1.74 QUIET)           # Boost::headers: Beast and Asio are header-only
find_package(PNG QUIET)                  # PNG::PNG (server/map_image.cc)

set(geo_found OFF)
if(PROJ_FOUND AND GEOS_FOUND)
  set(geo_found ON)
endif()
set(server_found OFF)
if(Boost_FOUND AND PNG_FOUND)
  set(server_found ON)
endif()
option(GRIDSTORE_WITH_RADOS "The Ceph RADOS backend (rados:// stores)" ${rados_FOUND})
option(GRIDSTORE_WITH_GRIB "GRIB import (ecCodes)" ${eccodes_FOUND})
option(GRIDSTORE_WITH_GEO "Projected and rotated grids and polygons (PROJ, GEOS)" ${geo_found})
option(GRIDSTORE_WITH_SERVER "The HTTP service, gridstore serve (Boost.Beast, libpng)" ${server_found})

# A feature asked for must be found: a clear message here, not a compile error later.
if(GRIDSTORE_WITH_RADOS)
  find_package(rados REQUIRED)
endif()
if(GRIDSTORE_WITH_GRIB)
  find_package(eccodes CONFIG REQUIRED)
endif()
if(GRIDSTORE_WITH_GEO)
  find_package(PROJ CONFIG REQUIRED)
  find_package(GEOS CONFIG REQUIRED)
endif()
if(GRIDSTORE_WITH_SERVER)
  find_package(Boost 1.74 REQUIRED)
  find_package(PNG REQUIRED)
endif()
if(NOT GRIDSTORE_WITH_SERVER)
  set(GRIDSTORE_BUILD_SERVER OFF CACHE BOOL "Build the HTTP service library" FORCE)
endif()

# gridstore/features.h: what this build has, as code can test it (stubs, --version, tests).
foreach(f RADOS GRIB GEO SERVER)
  if(GRIDSTORE_WITH_${f})
    set(GRIDSTORE_HAVE_${f} 1)
  else()
    set(GRIDSTORE_HAVE_${f} 0)
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/features.h.in
               ${PROJECT_BINARY_DIR}/include/gridstore/features.h @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/include/gridstore/features.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gridstore)
message(STATUS "GridStore features: RADOS ${GRIDSTORE_WITH_RADOS}, GRIB ${GRIDSTORE_WITH_GRIB}, "
               "GEO ${GRIDSTORE_WITH_GEO}, SERVER ${GRIDSTORE_WITH_SERVER}")
