// Copyright 2026 The GridStore Authors.
//
// The RADOS backend is a plugin: a program linking GridStore::gridstore maps no Ceph library until
// it opens a rados:// store, and a missing plugin is a clear error. Every TEST runs in its own
// process (gtest_discover_tests), so each sees the plugin loader fresh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gridstore/grid/grid_store.h"
#include "tests/test_util.h"

namespace gridstore {
namespace {

using grid::GridStore;

bool Mapped(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(library) != std::string::npos) return true;
  }
  return false;
}

TEST(RadosPluginTest, LocalStoresLoadNoCephLibrary) {
  testing::ScopedTempDir dir;
  ASSERT_OK(GridStore::Open("memory://", {.create_if_missing = true}).status());
  ASSERT_OK(GridStore::Open(dir.Sub("store"), {.create_if_missing = true}).status());
  EXPECT_FALSE(Mapped("librados")) << "librados is mapped without a rados:// store";
  EXPECT_FALSE(Mapped("libceph-common"));
  EXPECT_FALSE(Mapped("libgridstore_rados"));
}

TEST(RadosPluginTest, AMissingPluginIsAClearError) {
  testing::ScopedTempDir dir;  // empty: no plugin in it
  ASSERT_EQ(setenv("GRIDSTORE_PLUGIN_DIR", dir.path().c_str(), 1), 0);
  auto store = GridStore::Open("rados://pool?conf=/nonexistent/ceph.conf");
  EXPECT_STATUS(store, kFailedPrecondition, "rados:// stores need the GridStore RADOS plugin",
                dir.Sub("libgridstore_rados.so"));
  EXPECT_FALSE(Mapped("librados"));
}

TEST(RadosPluginTest, ALibraryThatIsNotThePluginIsRefused) {
  testing::ScopedTempDir dir;
  // Any shared library of the system will do: it lacks the plugin's entry points.
  std::filesystem::copy_file("/lib/x86_64-linux-gnu/libz.so.1", dir.Sub("libgridstore_rados.so"));
  ASSERT_EQ(setenv("GRIDSTORE_PLUGIN_DIR", dir.path().c_str(), 1), 0);
  auto store = GridStore::Open("rados://pool?conf=/nonexistent/ceph.conf");
  EXPECT_STATUS(store, kFailedPrecondition, dir.Sub("libgridstore_rados.so"),
                "not a GridStore RADOS plugin");
  EXPECT_EQ(store.status().ToString().find('\n'), std::string::npos) << "one line";
  EXPECT_FALSE(Mapped("librados"));
}

TEST(RadosPluginTest, ARadosUriLoadsThePluginAndLibrados) {
  // No cluster is needed: the configuration file is missing, which librados itself reports.
  auto store = GridStore::Open("rados://pool?conf=/nonexistent/ceph.conf");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().ToString().find("RADOS plugin"), std::string::npos)
      << store.status().ToString();
  EXPECT_TRUE(Mapped("libgridstore_rados.so"));
  EXPECT_TRUE(Mapped("librados"));
}

}  // namespace
}  // namespace gridstore
