// Copyright 2026 The GridStore Authors.
//
// Forecast collections over EDR, through the real service on a loopback socket (HttpServer +
// EdrService over a RocksDB store holding the collections of tests/formats/collection_testutil.h):
// the catalog lists each collection beside the datasets outside any, the collection and instance
// documents, queries from one instance and from the latest run, statistics checked value by
// value against the members' own answers, the cross-run views, the errors, and the dataset
// routes as before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "gridstore/forecast/collection.h"
#include "gridstore/server/edr_service.h"
#include "gridstore/server/http_server.h"
#include "gridstore/server/query_string.h"
#include "tests/formats/collection_testutil.h"
#include "tests/server/http_client_testutil.h"
#include "tests/test_util.h"

namespace gridstore::server {
namespace forecast_routes_test {

using ::testing::HasSubstr;
using Json = nlohmann::json;
using testing::EnsRunMs;
using testing::EnsT;
using testing::kEnsMembers;
using testing::kHourMs;

// The point asked: cell (x=3, y=3).
constexpr const char* kPoint = "coords=POINT(-4%2057)";
constexpr int64_t kX = 3, kY = 3;

std::string Iso(int run, int step = 0) {
  return forecast::FormatIsoMs(EnsRunMs(run) + step * 6 * kHourMs);
}

// numpy's percentile (linear) of `v`.
double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * double(v.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

class ForecastRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      ASSERT_OK_AND_ASSIGN(auto store,
                           grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
      ASSERT_OK(testing::WriteTestCollections(*store));
    }
    ASSERT_OK_AND_ASSIGN(source_, StoreSource::Open(dir_.Sub("store"), {}));
    service_ = std::make_unique<EdrService>(source_.get(), ServiceOptions{});
    HttpServerOptions options;
    options.port = 0;
    options.io_threads = 1;
    options.worker_threads = 2;
    options.handle_signals = false;
    options.access_log = false;
    ASSERT_OK_AND_ASSIGN(server_, HttpServer::Listen(options, [this](const HttpRequest& r) {
                           return service_->Handle(r);
                         }));
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (thread_.joinable()) thread_.join();
  }

  // One GET on a new connection.
  testing::ClientResponse Get(const std::string& target) {
    return testing::GetOnce(server_->port(), target);
  }
  Json GetJson(const std::string& target, int status = 200) {
    testing::ClientResponse r = Get(target);
    EXPECT_EQ(r.status, status) << target << ": " << r.body;
    return Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<StoreSource> source_;
  std::unique_ptr<EdrService> service_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(ForecastRoutesTest, TheCatalogListsCollectionsBesideTheDatasetsOutsideThem) {
  const Json list = GetJson("/collections");
  std::vector<std::string> ids;
  for (const Json& c : list["collections"]) ids.push_back(c["id"]);
  // Forecast collections first, by name; their members are not listed one by one.
  EXPECT_EQ(ids, (std::vector<std::string>{"test/det", "test/ens", "plain/one"}));
  EXPECT_EQ(list["numberMatched"], 3);
  // Paged as one list.
  const Json page = GetJson("/collections?limit=1&offset=1");
  ASSERT_EQ(page["collections"].size(), 1u);
  EXPECT_EQ(page["collections"][0]["id"], "test/ens");
  EXPECT_EQ(page["numberMatched"], 3);
  const Json last = GetJson("/collections?limit=2&offset=2");
  ASSERT_EQ(last["collections"].size(), 1u);
  EXPECT_EQ(last["collections"][0]["id"], "plain/one");
  // where: a collection is listed when one of its datasets matches.
  const Json members = GetJson("/collections?where=member%20%3D%202");
  ASSERT_EQ(members["collections"].size(), 1u);
  EXPECT_EQ(members["collections"][0]["id"], "test/ens");
  // A member stays reachable by its own id.
  const std::string member = PercentEncode(testing::EnsId("test/ens", 1, 2));
  EXPECT_EQ(GetJson("/collections/" + member)["id"], testing::EnsId("test/ens", 1, 2));
  EXPECT_EQ(Get("/collections/" + member + "/position?" + kPoint).status, 200);
}

TEST_F(ForecastRoutesTest, TheCollectionDocumentDeclaresMembersRunsAndInstances) {
  const Json doc = GetJson("/collections/test%2Fens");
  EXPECT_EQ(doc["id"], "test/ens");
  // extent.temporal: the latest run's valid times.
  EXPECT_EQ(doc["extent"]["temporal"]["values"], (Json{Iso(2, 0), Iso(2, 1)}));
  const Json& custom = doc["extent"]["custom"];
  ASSERT_EQ(custom.size(), 2u);
  EXPECT_EQ(custom[0]["id"], "member");
  EXPECT_EQ(custom[0]["values"], (Json{"0", "1", "2", "3"}));
  EXPECT_EQ(custom[1]["id"], "run");
  EXPECT_EQ(custom[1]["values"], (Json{Iso(0), Iso(1), Iso(2)}));
  EXPECT_EQ(custom[1]["interval"][0], (Json{Iso(0), Iso(2)}));
  EXPECT_TRUE(doc["parameter_names"].contains("t"));
  EXPECT_TRUE(doc["parameter_names"].contains("msl"));
  EXPECT_EQ(doc["parameter_names"]["t"]["unit"]["symbol"], "K");
  EXPECT_THAT(doc["data_queries"]["instances"]["link"]["href"].get<std::string>(),
              HasSubstr("/collections/test%2Fens/instances"));
  EXPECT_THAT(doc["data_queries"]["position"]["link"]["href"].get<std::string>(),
              HasSubstr("/collections/test%2Fens/position"));
  EXPECT_EQ(doc["output_formats"], (Json{"CoverageJSON", "NetCDF", "CSV", "JSON"}));
  // A deterministic collection has no member extent.
  const Json det = GetJson("/collections/test%2Fdet");
  ASSERT_EQ(det["extent"]["custom"].size(), 1u);
  EXPECT_EQ(det["extent"]["custom"][0]["id"], "run");
  // The id's '/' unescaped is taken as meant.
  EXPECT_EQ(GetJson("/collections/test/ens")["id"], "test/ens");
  // A quick-look map: the latest run's first member.
  testing::ClientResponse map = Get("/collections/test%2Fens/map.png");
  EXPECT_EQ(map.status, 200) << map.body;
  EXPECT_EQ(map.header("content-type"), "image/png");
}

TEST_F(ForecastRoutesTest, InstancesAreTheRunsNewestFirst) {
  const Json list = GetJson("/collections/test%2Fens/instances");
  ASSERT_EQ(list["instances"].size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const Json& one = list["instances"][size_t(k)];
    const int run = 2 - k;
    EXPECT_EQ(one["id"], Iso(run));
    EXPECT_EQ(one["extent"]["temporal"]["values"].size(), size_t(testing::EnsSteps(run)));
    EXPECT_THAT(
        one["data_queries"]["position"]["link"]["href"].get<std::string>(),
        HasSubstr("/collections/test%2Fens/instances/" + PercentEncode(Iso(run)) + "/position"));
    EXPECT_EQ(one["gridstore"]["forecast"]["datasets"].size(), size_t(kEnsMembers));
  }
  const Json one = GetJson("/collections/test%2Fens/instances/" + PercentEncode(Iso(1)));
  EXPECT_EQ(one["id"], Iso(1));
  EXPECT_EQ(GetJson("/collections/test%2Fens/instances/latest")["id"], Iso(2));
  // A dataset has no instances.
  testing::ClientResponse none = Get("/collections/plain%2Fone/instances");
  EXPECT_EQ(none.status, 404);
  EXPECT_THAT(none.body, HasSubstr("only forecast collections have runs"));
}

TEST_F(ForecastRoutesTest, PositionFromOneInstanceAndFromTheLatestRun) {
  for (int run : {0, 2}) {
    SCOPED_TRACE(run);
    const std::string target =
        run == 0 ? "/collections/test%2Fens/instances/" + PercentEncode(Iso(0)) + "/position?"
                 : "/collections/test%2Fens/position?";
    const Json cov = GetJson(target + kPoint + "&parameter-name=t&z=850");
    ASSERT_EQ(cov["type"], "CoverageCollection");
    ASSERT_EQ(cov["coverages"].size(), size_t(kEnsMembers));
    for (const Json& one : cov["coverages"]) {
      EXPECT_EQ(one["domain"]["axes"]["run"]["values"][0], Iso(run));
      const int m = one["domain"]["axes"]["member"]["values"][0];
      const Json& values = one["ranges"]["t"]["values"];
      ASSERT_EQ(values.size(), size_t(testing::EnsSteps(run)));
      for (int s = 0; s < testing::EnsSteps(run); ++s) {
        EXPECT_DOUBLE_EQ(values[size_t(s)].get<double>(), EnsT(run, m, s, 0, kX, kY));
      }
    }
  }
  // The same through the unescaped id, in CSV, NetCDF and JSON.
  testing::ClientResponse csv =
      Get(std::string("/collections/test/ens/position?") + kPoint + "&parameter-name=t&f=CSV");
  ASSERT_EQ(csv.status, 200) << csv.body;
  EXPECT_EQ(csv.header("content-type"), "text/csv; charset=utf-8");
  EXPECT_EQ(csv.body.substr(0, csv.body.find('\n')),
            "run,member,time,lead_hours,level,lat,lon,cell_lat,cell_lon,distance_km,t");
  testing::ClientResponse nc =
      Get(std::string("/collections/test%2Fens/position?") + kPoint + "&f=NetCDF");
  ASSERT_EQ(nc.status, 200) << nc.body;
  EXPECT_EQ(nc.header("content-type"), "application/x-netcdf");
  EXPECT_EQ(nc.body.substr(1, 3), "HDF");
  // t and msl are on other axes: the netCDF answer holds t, and says msl is left out.
  EXPECT_THAT(nc.header("x-gridstore-left-out"), HasSubstr("'msl'"));
  const Json rows = GetJson(std::string("/collections/test%2Fens/position?") + kPoint +
                            "&parameter-name=msl&member=3&f=json");
  ASSERT_EQ(rows["rows"].size(), 2u);
  EXPECT_DOUBLE_EQ(rows["rows"][1]["msl"].get<double>(), testing::EnsMsl(2, 3, 1, kX, kY));
  // units: K as degC.
  const Json celsius = GetJson(std::string("/collections/test%2Fens/position?") + kPoint +
                               "&parameter-name=t&member=0&z=500&units=degC&f=json");
  ASSERT_EQ(celsius["rows"].size(), 2u);
  EXPECT_NEAR(celsius["rows"][0]["t"].get<double>(), EnsT(2, 0, 0, 1, kX, kY) - 273.15, 1e-4);
}

TEST_F(ForecastRoutesTest, StatisticsEqualThoseOfTheMembersAnswers) {
  // The members' own answers, then the statistics: p50 (between the 2nd and 3rd of 4 members),
  // the mean and a probability, value by value.
  const std::string base =
      std::string("/collections/test%2Fens/position?") + kPoint + "&parameter-name=t&f=json";
  const Json members = GetJson(base);
  std::map<std::pair<std::string, double>, std::vector<double>> by_time_level;
  for (const Json& row : members["rows"]) {
    by_time_level[{row["time"], row["level"]}].push_back(row["t"]);
  }
  ASSERT_EQ(by_time_level.size(), 2u * 2);
  const Json stats = GetJson(base + "&stat=p50,mean,prob%3E271");
  ASSERT_EQ(stats["rows"].size(), 3u * 2 * 2);
  for (const Json& row : stats["rows"]) {
    const std::vector<double>& v = by_time_level.at({row["time"], row["level"]});
    ASSERT_EQ(v.size(), size_t(kEnsMembers));
    const std::string stat = row["stat"];
    double want = 0;
    if (stat == "p50") want = Percentile(v, 50);
    if (stat == "mean") want = (v[0] + v[1] + v[2] + v[3]) / 4;
    if (stat == "prob>271") {
      want = double(std::count_if(v.begin(), v.end(), [](double x) { return x > 271; })) / 4;
    }
    EXPECT_NEAR(row["t"].get<double>(), want, 1e-9) << stat << " " << row;
  }
  // p50 is not the mean here (the members are uneven), and the test is not vacuous.
  const auto& v = by_time_level.begin()->second;
  EXPECT_NE(Percentile(v, 50), (v[0] + v[1] + v[2] + v[3]) / 4);
  // In CoverageJSON, each statistic a coverage with a stat axis.
  const Json cov = GetJson(std::string("/collections/test%2Fens/position?") + kPoint +
                           "&parameter-name=t&z=850&stat=p50");
  ASSERT_EQ(cov["coverages"].size(), 1u);
  EXPECT_EQ(cov["coverages"][0]["domain"]["axes"]["stat"]["values"][0], "p50");
}

TEST_F(ForecastRoutesTest, CrossRunViews) {
  const std::string base = std::string("/collections/test%2Fens/position?") + kPoint +
                           "&parameter-name=t&z=850&member=0&f=json";
  // lead: 6 h from every run.
  const Json lead = GetJson(base + "&lead=6h");
  EXPECT_EQ(lead["view"], "constant offset");
  ASSERT_EQ(lead["rows"].size(), 3u);
  for (int r = 0; r < 3; ++r) {
    const Json& row = lead["rows"][size_t(r)];
    EXPECT_EQ(row["run"], Iso(r));
    EXPECT_EQ(row["time"], Iso(r, 1));
    EXPECT_EQ(row["lead_hours"], 6);
    EXPECT_DOUBLE_EQ(row["t"].get<double>(), EnsT(r, 0, 1, 0, kX, kY));
  }
  // best: each valid time from the newest run that has it.
  const Json best = GetJson(base + "&best=true");
  EXPECT_EQ(best["view"], "best");
  const std::vector<std::pair<int, int>> expected = {{0, 0}, {0, 1}, {1, 0},
                                                     {1, 1}, {2, 0}, {2, 1}};  // (run, step)
  ASSERT_EQ(best["rows"].size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto [r, s] = expected[k];
    EXPECT_EQ(best["rows"][k]["run"], Iso(r));
    EXPECT_EQ(best["rows"][k]["time"], Iso(r, s));
    EXPECT_DOUBLE_EQ(best["rows"][k]["t"].get<double>(), EnsT(r, 0, s, 0, kX, kY));
  }
  // Constant forecast time: run=all with one datetime (2026-11-25T00Z: run 1 at +12 h, run 2 at
  // +0 h; run 0 ends before it).
  const Json valid = GetJson(base + "&run=all&datetime=" + Iso(2));
  EXPECT_EQ(valid["view"], "constant forecast time");
  ASSERT_EQ(valid["rows"].size(), 2u);
  EXPECT_EQ(valid["rows"][0]["run"], Iso(1));
  EXPECT_EQ(valid["rows"][0]["lead_hours"], 12);
  EXPECT_DOUBLE_EQ(valid["rows"][0]["t"].get<double>(), EnsT(1, 0, 2, 0, kX, kY));
  EXPECT_EQ(valid["rows"][1]["run"], Iso(2));
  EXPECT_DOUBLE_EQ(valid["rows"][1]["t"].get<double>(), EnsT(2, 0, 0, 0, kX, kY));
  // A range of runs.
  const Json two = GetJson(base + "&run=" + PercentEncode(Iso(0) + "/" + Iso(1)));
  ASSERT_EQ(two["rows"].size(), size_t(testing::EnsSteps(0) + testing::EnsSteps(1)));
}

TEST_F(ForecastRoutesTest, ErrorsNameWhatIsWrong) {
  const std::string base = std::string("/collections/test%2Fens/position?") + kPoint;
  struct Case {
    std::string target;
    int status;
    std::string says;
  };
  const Case cases[] = {
      // A run that does not exist: the nearest named.
      {base + "&run=2026-11-24T06:00:00Z", 404, "the nearest are " + Iso(0) + " and " + Iso(1)},
      {"/collections/test%2Fens/instances/2026-11-24T06:00:00Z", 404, "the nearest are"},
      {base + "&member=7", 404, "has no member 7"},
      {base + "&member=x", 400, "not a number"},
      {base + "&stat=mean&member=1", 400, "choose at least two members"},
      {base + "&stat=p200", 400, "p200"},
      {base + "&stat=prob%3E", 400, "prob>"},
      {base + "&lead=6h&best=true", 400, "choose one cross-run view"},
      {base + "&lead=240h", 400, "beyond every run"},
      {base + "&best=maybe", 400, "not true or false"},
      {base + "&colour=red", 400, "run, "},  // the forecast parameters are listed
      {"/collections/test%2Fdet/position?" + std::string(kPoint) + "&member=1", 400,
       "deterministic"},
      {"/collections/test%2Fens/instances/" + PercentEncode(Iso(0)) + "/position?" + kPoint +
           "&run=latest",
       400, "is the run already"},
      {"/collections/test%2Fens/instances/all/position?" + std::string(kPoint), 404,
       "is not one run"},
      {"/collections/nothing%2Fhere", 404, "no collection 'nothing/here'"},
      {"/collections/nothing%2Fhere/instances", 404, "no collection 'nothing/here'"},
      {base + "&f=npy", 400, "CSV or JSON"},
  };
  for (const Case& c : cases) {
    testing::ClientResponse r = Get(c.target);
    EXPECT_EQ(r.status, c.status) << c.target << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.says)) << c.target;
    const Json body = Json::parse(r.body, nullptr, false);
    EXPECT_TRUE(body.contains("code") && body.contains("description")) << r.body;
  }
}

TEST_F(ForecastRoutesTest, DatasetRoutesAreAsBefore) {
  const Json doc = GetJson("/collections/plain%2Fone");
  EXPECT_EQ(doc["id"], "plain/one");
  EXPECT_FALSE(doc["extent"].contains("custom"));
  EXPECT_EQ(doc["output_formats"], (Json{"CoverageJSON", "NetCDF", "CSV"}));
  const Json cov = GetJson("/collections/plain%2Fone/position?" + std::string(kPoint) +
                           "&parameter-name=t&z=850");
  ASSERT_EQ(cov["type"], "Coverage");
  const Json& values = cov["ranges"]["t"]["values"];
  ASSERT_EQ(values.size(), 2u);
  for (int s = 0; s < 2; ++s) {
    EXPECT_DOUBLE_EQ(values[size_t(s)].get<double>(), EnsT(0, -1, s, 0, kX, kY));
  }
  // No run, member or stat on a dataset; f=json neither.
  testing::ClientResponse r =
      Get("/collections/plain%2Fone/position?" + std::string(kPoint) + "&member=1");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("no parameter 'member'"));
  EXPECT_EQ(Get("/collections/plain%2Fone/position?" + std::string(kPoint) + "&f=json").status,
            400);
  EXPECT_EQ(Get("/collections/plain%2Fone/map.png").status, 200);
  // The OpenAPI document names the new routes and parameters.
  const Json api = GetJson("/api");
  EXPECT_TRUE(api["paths"].contains("/collections/{collectionId}/instances"));
  EXPECT_TRUE(api["paths"].contains("/collections/{collectionId}/instances/{instanceId}/position"));
  bool has_stat = false;
  for (const Json& p : api["paths"]["/collections/{collectionId}/position"]["get"]["parameters"]) {
    has_stat |= p["name"] == "stat";
  }
  EXPECT_TRUE(has_stat);
}

}  // namespace forecast_routes_test
}  // namespace gridstore::server
