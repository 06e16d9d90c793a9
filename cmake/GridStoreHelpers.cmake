# gridstore_add_library(NAME ALIAS [NO_INSTALL] SRCS ... [PUBLIC_HEADERS ...] [PUBLIC_DEPS ...]
#                       [PRIVATE_DEPS ...])
# One static library per module, warnings on, includes rooted at the repository root
# (#include "gridstore/grid/grid_store.h", in the tree and installed alike), C++20 as a usage
# requirement, and an alias GridStore::<ALIAS> so in-tree and installed users spell targets the
# same way. Only PUBLIC_HEADERS are installed: everything else is the library's own.
function(gridstore_add_library name)
  cmake_parse_arguments(ARG "NO_INSTALL" "ALIAS" "SRCS;PUBLIC_HEADERS;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} ${ARG_SRCS})
  add_library(GridStore::${ARG_ALIAS} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${ARG_ALIAS} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${name} PUBLIC cxx_std_20)
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  file(RELATIVE_PATH module_dir ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(header ${ARG_PUBLIC_HEADERS})
    get_filename_component(header_dir ${header} DIRECTORY)
    install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${module_dir}/${header_dir})
  endforeach()
  gridstore_set_warnings(${name})
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} EXPORT GridStoreTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endfunction()

function(gridstore_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wno-missing-field-initializers
    $<$<BOOL:${GRIDSTORE_WERROR}>:-Werror>)
endfunction()

# gridstore_add_test(NAME SRCS ... [DEPS ...] [FIXTURES F] [TEST_PREFIX P]): one GoogleTest
# executable per test folder; every TEST becomes its own ctest case (gtest_discover_tests), so
# `ctest -R` selects single cases. TEST_PREFIX keeps the names of a suite compiled into a second
# executable (the RADOS runs) apart from the first; FIXTURES names ctest fixtures it requires.
function(gridstore_add_test name)
  cmake_parse_arguments(ARG "" "FIXTURES;TEST_PREFIX" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  gridstore_set_warnings(${name})
  # One variable only: gtest_discover_tests splits a list value into separate properties.
  set(properties ENVIRONMENT "GRIDSTORE_TEST_DATA=${GRIDSTORE_TEST_DATA}"
      ENVIRONMENT_MODIFICATION "${GRIDSTORE_TEST_PLUGIN_ENV}")
  if(ARG_LABELS)
    list(APPEND properties LABELS "${ARG_LABELS}")
  endif()
  if(ARG_FIXTURES)
    list(APPEND properties FIXTURES_REQUIRED "${ARG_FIXTURES}")
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 TEST_PREFIX "${ARG_TEST_PREFIX}"
                       PROPERTIES ${properties})
endfunction()
