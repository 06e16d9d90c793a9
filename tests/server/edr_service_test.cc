// Copyright 2026 The GridStore Authors.
//
// EdrService over a real RocksDB store, without a socket: answers equal the extraction library's,
// and many requests at once stay correct while another handle imports and deletes datasets and
// the StoreSource swaps in reopened handles (the ThreadSanitizer build runs this too).
#include "gridstore/server/edr_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/test_util.h"

namespace gridstore::server {
namespace {

using ::testing::HasSubstr;

std::string TosPath() {
  const char* dir = std::getenv("GRIDSTORE_TEST_DATA");
  return std::string(dir ? dir : "../shared/data") + "/tos_O1_2001-2002.nc";
}

class EdrServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(writer_,
                         grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    Import("ocean/tos");
  }
  void Import(const std::string& id) {
    importers::NetCdfImportOptions options;
    options.dataset_id = id;
    ASSERT_OK(importers::ImportNetCdf(writer_.get(), TosPath(), options).status());
    ASSERT_OK(writer_->Flush());
  }
  HttpResponse Get(const EdrService& service, const std::string& target) {
    return service.Handle({.method = "GET", .target = target, .host = "127.0.0.1:1"});
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> writer_;
};

TEST_F(EdrServiceTest, PositionEqualsTheLibrary) {
  ASSERT_OK_AND_ASSIGN(auto source, StoreSource::Open(dir_.Sub("store"), {}));
  EdrService service(source.get(), {});
  HttpResponse r = Get(service, "/collections/ocean%2Ftos/position?coords=POINT(200%20-10)");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/prs.coverage+json");
  auto cov = nlohmann::json::parse(r.body);
  grid::ExtractRequest request;
  request.variables = {"tos"};
  request.points = {{200, -10}};
  ASSERT_OK_AND_ASSIGN(grid::Extraction want,
                       grid::Extract(*source->Current(), "ocean/tos", request));
  const auto& got = cov["ranges"]["tos"]["values"];
  ASSERT_EQ(got.size(), want.variables[0].values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_FLOAT_EQ(got[i].get<double>(), want.variables[0].values[i]);
  }
}

TEST_F(EdrServiceTest, ReadOnlyTokensAndNotDone) {
  ASSERT_OK_AND_ASSIGN(auto meta, writer_->GetDataSetMeta("ocean/tos"));
  meta.id = "half/done";
  meta.set_status(grid::kStatusInit);
  ASSERT_OK(writer_->PutDataSetMeta(meta));
  ASSERT_OK(writer_->Flush());
  ASSERT_OK_AND_ASSIGN(auto source, StoreSource::Open(dir_.Sub("store"), {}));
  EdrService open(source.get(), {});
  HttpResponse post = open.Handle({.method = "POST", .target = "/collections"});
  EXPECT_EQ(post.status, 405);
  HttpResponse init = Get(open, "/collections/half%2Fdone/position?coords=POINT(200%20-10)");
  EXPECT_EQ(init.status, 404);
  EXPECT_THAT(init.body, HasSubstr("INIT"));
  auto list = nlohmann::json::parse(Get(open, "/collections").body);
  EXPECT_EQ(list["collections"].size(), 1u);  // only DONE datasets are collections
  EdrService guarded(source.get(), {.tokens = {"abc", "defg"}});
  EXPECT_EQ(Get(guarded, "/").status, 401);
  EXPECT_EQ(guarded.Handle({.method = "GET", .target = "/", .authorization = "Bearer defg"}).status,
            200);
  EXPECT_EQ(guarded.Handle({.method = "GET", .target = "/", .authorization = "Bearer def"}).status,
            401);
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
}

TEST_F(EdrServiceTest, ARunStillArrivingServesItsCompleteSteps) {
  Import("run/arriving");
  ASSERT_OK_AND_ASSIGN(auto meta, writer_->GetDataSetMeta("run/arriving"));
  meta.set_status(grid::kStatusIngesting);
  meta.FindVariable("tos")->complete_steps.Add(0, 10);  // of 24 monthly steps
  ASSERT_OK(writer_->UpdateDataSetMeta(meta));
  ASSERT_OK(writer_->Flush());
  ASSERT_OK_AND_ASSIGN(auto source, StoreSource::Open(dir_.Sub("store"), {}));
  EdrService service(source.get(), {});
  auto list = nlohmann::json::parse(Get(service, "/collections").body);
  EXPECT_EQ(list["collections"].size(), 2u);
  // No datetime: the complete steps.
  HttpResponse r = Get(service, "/collections/run%2Farriving/position?coords=POINT(200%20-10)");
  ASSERT_EQ(r.status, 200) << r.body;
  auto cov = nlohmann::json::parse(r.body);
  EXPECT_EQ(cov["ranges"]["tos"]["values"].size(), 10u);
  // A step not written yet: 409, naming it.
  r = Get(service,
          "/collections/run%2Farriving/position?coords=POINT(200%20-10)&datetime=2002-06-16");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_THAT(r.body, HasSubstr("still being ingested"));
}

TEST(TokenFileTest, TakesTokensAndRefusesWhatIsNotARegularSmallFile) {
  testing::ScopedTempDir dir;
  const std::string good = dir.Sub("tokens");
  {
    std::ofstream out(good);
    out << "# readers\n  abc  \n\ndefg\n";
  }
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> tokens, ReadTokenFile(good));
  EXPECT_EQ(tokens, (std::vector<std::string>{"abc", "defg"}));
  const std::string empty = dir.Sub("empty");
  std::ofstream(empty) << "# none\n";
  const std::string huge = dir.Sub("huge");
  std::ofstream(huge) << std::string(2 << 20, 'x');
  const std::string link = dir.Sub("link");
  std::filesystem::create_symlink(good, link);
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> linked, ReadTokenFile(link));  // followed
  EXPECT_EQ(linked, tokens);
  const std::pair<std::string, std::string> cases[] = {
      {dir.Sub("missing"), "does not exist"},
      {dir.path().string(), "is not a regular file"},
      {"/dev/zero", "is not a regular file"},
      {huge, "larger than 1 MiB"},
      {empty, "holds no token"},
  };
  for (const auto& [path, message] : cases) {
    EXPECT_THAT(ReadTokenFile(path).status().message(), HasSubstr(message)) << path;
  }
}

TEST_F(EdrServiceTest, ConcurrentRequestsWhileAnotherHandleImportsAndDeletes) {
  ASSERT_OK_AND_ASSIGN(auto source,
                       StoreSource::Open(dir_.Sub("store"), std::chrono::milliseconds(20)));
  EdrService service(source.get(), {});
  const std::string point = "/position?coords=POINT(200%20-10)";
  const std::string expected = Get(service, "/collections/ocean%2Ftos" + point).body;
  std::atomic<bool> done{false};
  std::atomic<int> bad{0}, answered_b{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!done) {
        HttpResponse a = Get(service, "/collections/ocean%2Ftos" + point);
        if (a.status != 200 || a.body != expected) ++bad;
        HttpResponse b = Get(service, "/collections/late%2Ftos" + point);
        if (b.status == 200) ++answered_b;
        if (b.status != 200 && b.status != 404) ++bad;
        if (Get(service, "/collections").status != 200) ++bad;
      }
    });
  }
  for (int round = 0; round < 4; ++round) {
    Import("late/tos");
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    ASSERT_OK(writer_->DeleteDataSet("late/tos"));
    ASSERT_OK(writer_->Flush());
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad, 0);
  EXPECT_OK(source->Refresh());
  EXPECT_EQ(Get(service, "/collections/late%2Ftos").status, 404);
}

}  // namespace
}  // namespace gridstore::server
