// Copyright 2026 The GridStore Authors.
//
// Faults on a real Ceph cluster of the test's own (scripts/ceph-test-cluster.sh): the OSD killed
// in the middle of reads and of an import. Every failure must be a clear Unavailable within the
// RADOS op timeout (never a hang, never wrong values), nothing half-written may pass for a
// complete dataset, and once the OSD is back the store works and the import can be redone.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/storage/kv_store_factory.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using Clock = std::chrono::steady_clock;
using grid::GridStore;

// The cluster's rados osd/mon op timeout (scripts/ceph-test-cluster.sh); failures must come
// within a small multiple of it.
constexpr auto kOpTimeout = std::chrono::seconds(10);
constexpr auto kFailureBound = 4 * kOpTimeout;
constexpr const char* kFile = "tos_O1_2001-2002.nc";  // 24 planes of 170 x 180 floats

// Runs a shell command; returns its output (stdout and stderr), failing the test if it fails.
std::string Shell(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return "";
  }
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  const int rc = pclose(pipe);
  EXPECT_EQ(rc, 0) << command << " failed:\n" << out;
  return out;
}

std::string Cluster(const std::string& args) {
  return Shell("bash '" GRIDSTORE_CEPH_CLUSTER_SCRIPT "' " + args);
}

std::string DataFile() {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  if (env == nullptr || *env == '\0') {
    ADD_FAILURE() << "GRIDSTORE_TEST_DATA is not set (the folder of ../shared/data)";
    return "";
  }
  return (std::filesystem::path(env) / kFile).string();
}

// Every variable of dataset `id`, whole, read past every cache.
Result<grid::GridDataSet> FetchAll(GridStore* store, const std::string& id) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store->GetDataFetcher(id));
  grid::FetchOptions options;
  options.use_cache = false;
  fetcher->set_options(options);
  return fetcher->Fetch();
}

void ExpectSameValues(const grid::GridDataSet& got, const grid::GridDataSet& want) {
  const grid::Grid4D* g = got.GetVariable("tos");
  const grid::Grid4D* w = want.GetVariable("tos");
  ASSERT_NE(g, nullptr);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(g->size_bytes(), w->size_bytes());
  EXPECT_EQ(std::string(g->bytes(), g->size_bytes()), std::string(w->bytes(), w->size_bytes()));
}

class RadosFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_dir_ = new ScopedTempDir();
    const std::string dir = cluster_dir_->Sub("cluster");
    const std::string out = Cluster("start '" + dir + "' --pool faults");
    conf_ = dir + "/ceph.conf";
    ASSERT_TRUE(std::filesystem::exists(conf_)) << out;
  }
  static void TearDownTestSuite() {
    Cluster("stop '" + cluster_dir_->Sub("cluster") + "'");
    delete cluster_dir_;
  }
  void SetUp() override {
    if (HasFatalFailure() || conf_.empty()) GTEST_FAIL() << "the test cluster did not start";
  }
  // Restarts the OSD if a test left it down, so the next test starts from a working cluster.
  void TearDown() override {
    if (osd_down_) StartOsd();
  }

  // `ceph -s` and the end of the OSD's log, for failure messages.
  static std::string Diagnostics() {
    const std::string dir = cluster_dir_->Sub("cluster");
    return Shell("ceph -c '" + dir + "/ceph.conf' -s; ceph -c '" + dir +
                 "/ceph.conf' osd dump | grep ^osd; tail -n 40 '" + dir + "/log/osd.0.log'");
  }
  static std::string Uri(const std::string& ns) {
    return "rados://faults?conf=" + conf_ + "&namespace=" + ns;
  }
  void StopOsd() {
    Cluster("stop-osd '" + cluster_dir_->Sub("cluster") + "' 0");
    osd_down_ = true;
  }
  void StartOsd() {
    Cluster("start-osd '" + cluster_dir_->Sub("cluster") + "' 0");
    osd_down_ = false;
  }

  // The file imported into a local RocksDB store: what the RADOS store must read back.
  grid::GridDataSet Reference() {
    auto local = GridStore::Open(local_dir_.Sub("store"), {.create_if_missing = true});
    EXPECT_OK(local);
    importers::NetCdfImportOptions options;
    options.dataset_id = "tos";
    EXPECT_OK(importers::ImportNetCdf(local->get(), DataFile(), options));
    auto all = FetchAll(local->get(), "tos");
    EXPECT_OK(all);
    return all.ok() ? std::move(*all) : grid::GridDataSet{};
  }

  static ScopedTempDir* cluster_dir_;
  static std::string conf_;
  ScopedTempDir local_dir_;
  bool osd_down_ = false;
};

ScopedTempDir* RadosFaultTest::cluster_dir_ = nullptr;
std::string RadosFaultTest::conf_;

TEST_F(RadosFaultTest, OsdKilledDuringReadsGivesUnavailableThenReadsRecover) {
  const grid::GridDataSet want = Reference();
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(Uri("reads"), {.create_if_missing = true}));
  importers::NetCdfImportOptions options;
  options.dataset_id = "tos";
  options.layout.block_x = 32;  // many blocks: a fetch is many reads in flight
  options.layout.block_y = 32;
  ASSERT_OK(importers::ImportNetCdf(store.get(), DataFile(), options));

  // A reader fetches in a loop; the OSD dies under it.
  std::atomic<int> fetched{0};
  std::atomic<bool> failed{false};
  Status failure;
  Clock::duration failing_fetch{};
  std::thread reader([&] {
    while (!failed) {
      const auto start = Clock::now();
      auto all = FetchAll(store.get(), "tos");
      if (!all.ok()) {
        failing_fetch = Clock::now() - start;
        failure = all.status();
        failed = true;
        return;
      }
      ExpectSameValues(*all, want);  // a fetch that succeeds is right
      ++fetched;
    }
  });
  while (fetched == 0 && !failed) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  StopOsd();
  const auto killed = Clock::now();
  reader.join();
  EXPECT_LT(Clock::now() - killed, kFailureBound) << "no error within the op timeout";
  EXPECT_LT(failing_fetch, kFailureBound);
  EXPECT_TRUE(failure.IsUnavailable()) << failure;
  EXPECT_THAT(std::string(failure.message()), ::testing::HasSubstr("RADOS pool 'faults'"));
  EXPECT_THAT(std::string(failure.message()), ::testing::HasSubstr("timed out"));

  StartOsd();
  auto again = FetchAll(store.get(), "tos");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << Diagnostics();
  ExpectSameValues(*again, want);
  // A store opened after the fault works as well.
  ASSERT_OK_AND_ASSIGN(auto reopened, GridStore::Open(Uri("reads"), {.read_only = true}));
  auto reread = FetchAll(reopened.get(), "tos");
  ASSERT_TRUE(reread.ok()) << reread.status() << "\n" << Diagnostics();
  ExpectSameValues(*reread, want);
}

TEST_F(RadosFaultTest, OsdKilledDuringAnImportLeavesItVisiblyUnfinishedAndItCanBeRedone) {
  const grid::GridDataSet want = Reference();
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(Uri("import"), {.create_if_missing = true}));
  importers::NetCdfImportOptions options;
  options.dataset_id = "tos";
  int planes = 0;
  options.on_progress = [&](const importers::ImportProgress&) {
    if (++planes == 3) StopOsd();  // the meta (INIT) and some planes are in; the rest are not
  };
  const auto start = Clock::now();
  auto summary = importers::ImportNetCdf(store.get(), DataFile(), options);
  ASSERT_FALSE(summary.ok()) << "the import finished without its OSD";
  EXPECT_LT(Clock::now() - start, kFailureBound + std::chrono::seconds(10));
  EXPECT_TRUE(summary.status().IsUnavailable()) << summary.status();
  EXPECT_THAT(std::string(summary.status().message()), ::testing::HasSubstr(kFile));

  StartOsd();
  // What the crash left is visibly not a finished dataset.
  ASSERT_OK_AND_ASSIGN(auto reopened, GridStore::Open(Uri("import"), {}));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, reopened->GetDataSetMeta("tos"));
  EXPECT_EQ(meta.status(), grid::kStatusInit);

  // Redone over what was left, it is whole and verifies.
  options.on_progress = nullptr;
  options.overwrite = true;
  ASSERT_OK(importers::ImportNetCdf(reopened.get(), DataFile(), options));
  ASSERT_OK_AND_ASSIGN(meta, reopened->GetDataSetMeta("tos"));
  EXPECT_EQ(meta.status(), grid::kStatusDone);
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet all, FetchAll(reopened.get(), "tos"));
  ExpectSameValues(all, want);
  ASSERT_OK_AND_ASSIGN(grid::VerifyReport report, grid::Verify(reopened.get(), "tos"));
  EXPECT_TRUE(report.problems.empty());
}

TEST_F(RadosFaultTest, OpeningAStoreWithTheOsdDownFailsInTimeAndWorksOnceItIsBack) {
  ASSERT_OK(GridStore::Open(Uri("open"), {.create_if_missing = true}));
  StopOsd();
  const auto start = Clock::now();
  auto store = GridStore::Open(Uri("open"), {});
  EXPECT_LT(Clock::now() - start, kFailureBound);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(store.status().IsUnavailable()) << store.status();
  StartOsd();
  ASSERT_OK(GridStore::Open(Uri("open"), {}));
}

// Ceph blocks writes to a full pool until space is freed; with the op timeout that is an error.
TEST_F(RadosFaultTest, AFullPoolGivesUnavailableNotAHang) {
  const std::string ceph = "ceph -c '" + conf_ + "' ";
  Shell(ceph + "osd pool create full 8 && " + ceph + "osd pool application enable full rados && " +
        ceph + "osd pool set-quota full max_objects 4");
  ASSERT_OK_AND_ASSIGN(auto store,
                       storage::OpenKvStore("rados://full?conf=" + conf_,
                                            storage::OpenOptions{.create_if_missing = true}));
  // Fill it past its quota; the monitor flags the pool full once the OSD reports the count.
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(
        store->Put(storage::WriteOptions{}, storage::Table::kData, "k" + std::to_string(i), "v"));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Shell(ceph + "osd pool ls detail").find("full_quota") == std::string::npos) {
    ASSERT_LT(Clock::now(), deadline) << "the pool was never flagged full";
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const auto start = Clock::now();
  Status s = store->Put(storage::WriteOptions{}, storage::Table::kData, "one-more", "v");
  EXPECT_LT(Clock::now() - start, kFailureBound);
  EXPECT_TRUE(s.IsUnavailable()) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("RADOS pool 'full'"));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("full?"));
  // Reads still work.
  std::string value;
  ASSERT_OK(store->Get(storage::ReadOptions{}, storage::Table::kData, "k0", &value));
  EXPECT_EQ(value, "v");
}

}  // namespace
}  // namespace gridstore::testing
