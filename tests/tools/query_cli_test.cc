// Copyright 2026 The GridStore Authors.
//
// End-to-end tests of `gridstore index`, `gridstore meta put` and `gridstore query --where`: the
// real binary on a real RocksDB store. Errors exit 1 with one line on stderr, except --where
// syntax errors, which add the expression and a caret under the bad column.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gridstore/grid/grid_store.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore {
namespace {

using ::testing::HasSubstr;
using testing::ScopedTempDir;

using testing::ExpectCliError;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;

class QueryCliTest : public ::testing::Test {
 protected:
  std::string store() const { return dir_.Sub("store"); }

  // Runs `gridstore --store STORE args...` with `stdin_text` on its standard input.
  RunResult Run(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    return RunGridStore(dir_.path().string(), store(), args, stdin_text);
  }

  void ExpectError(const RunResult& r, std::initializer_list<std::string> parts) {
    ExpectCliError(r, parts);
  }

  // 12 datasets d00..d11: source ECMWF/NMC/JMA by i % 3, status DONE for even i, create_time
  // 1000 + 10 i, model gfs-0p25 / gfs-1p0 / ifs, resolution 0.25 * (1 + i % 2); d05 has a tag.
  static std::string Catalogue() {
    std::string lines;
    const char* sources[] = {"ECMWF", "NMC", "JMA"};
    for (int i = 0; i < 12; ++i) {
      char line[512];
      std::snprintf(line, sizeof(line),
                    R"({"id": "d%02d", "attributes": {"source": "%s", "status": "%s", )"
                    R"("create_time": %d, "model": "%s", "resolution": %s%s}})"
                    "\n",
                    i, sources[i % 3], i % 2 == 0 ? "DONE" : "INIT", 1000 + 10 * i,
                    i % 4 == 0 ? "gfs-0p25" : (i % 4 == 1 ? "gfs-1p0" : "ifs"),
                    i % 2 == 0 ? "0.25" : "0.5", i == 5 ? R"(, "tag": "x")" : "");
      lines += line;
    }
    return lines;
  }

  // The catalogue through `meta put`: the datasets exist first (as an import leaves them, with a
  // variable), so that the query tests do not depend on data-less creation.
  void LoadCatalogue(bool with_index = true) {
    if (with_index) {
      RunResult r = Run({"index", "create", "main", "status:string", "create_time:int64",
                         "source:string", "model:string"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    {
      ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.create_if_missing = true}));
      for (int i = 0; i < 12; ++i) {
        grid::DataSetMeta meta;
        char id[16];
        std::snprintf(id, sizeof(id), "d%02d", i);
        meta.id = id;
        meta.variables.push_back({.name = "T"});
        ASSERT_OK(s->PutDataSetMeta(meta));
      }
    }
    RunResult r = Run({"meta", "put"}, Catalogue());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "0 dataset meta(s) created, 12 updated\n");
  }

  // The ids of a --json query's output, in order.
  static std::vector<std::string> Ids(const RunResult& r) {
    std::vector<std::string> ids;
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    if (doc.is_discarded()) return {"<not JSON: " + r.out + ">"};
    for (const auto& d : doc["datasets"]) ids.push_back(d["id"].get<std::string>());
    return ids;
  }

  std::vector<std::string> QueryIds(std::vector<std::string> args) {
    args.insert(args.begin(), "query");
    args.push_back("--json");
    RunResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Ids(r);
  }

  ScopedTempDir dir_;
};

using IdList = std::vector<std::string>;

TEST_F(QueryCliTest, IndexCreateListDrop) {
  RunResult r = Run({"index", "create", "main", "status:string", "create_time:int64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "created index 'main': status:string, create_time:int64\n");
  r = Run({"index", "create", "by_source", "source:keyword", "resolution:double", "ok:bool"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"index", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("main  status:string, create_time:int64\n"));
  EXPECT_THAT(r.out, HasSubstr("by_source  source:string, resolution:double, ok:bool\n"));
  // The same schema again is fine; a different one is refused.
  EXPECT_EQ(Run({"index", "create", "main", "status:string", "create_time:int64"}).exit_code, 0);
  r = Run({"index", "create", "main", "status:int64"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.err, HasSubstr("main"));
  r = Run({"index", "drop", "by_source"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "dropped index 'by_source'\n");
  r = Run({"index", "list"});
  EXPECT_EQ(r.out, "main  status:string, create_time:int64\n");
}

TEST_F(QueryCliTest, IndexCreateNamesTheBadArgument) {
  ExpectError(Run({"index", "create", "main", "status"}),
              {"index field 'status': expected FIELD:TYPE"});
  ExpectError(Run({"index", "create", "main", "status:string", "n:int"}),
              {"index field 'n:int': unknown type 'int' (expected string, int64, double or bool)"});
  EXPECT_EQ(Run({"index", "create", "main"}).exit_code, 2);  // no fields: a usage error
  EXPECT_EQ(Run({"index"}).exit_code, 2);
}

TEST_F(QueryCliTest, MetaPutCreatesThenUpdates) {
  RunResult r = Run({"meta", "put"}, Catalogue());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "12 dataset meta(s) created, 0 updated\n");
  // Update: one attribute changed, one removed, one added; a new dataset; blank lines skipped.
  r = Run({"meta", "put", "-"},
          "\n{\"id\": \"d03\", \"attributes\": {\"status\": \"DONE\", \"model\": null, "
          "\"ok\": true}}\r\n\n{\"id\": \"new one\", \"attributes\": {}}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1 dataset meta(s) created, 1 updated\n");

  ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.read_only = true}));
  ASSERT_OK_AND_ASSIGN(auto list, s->ListDataSets());
  EXPECT_EQ(list.size(), 13u);
  ASSERT_OK_AND_ASSIGN(auto d03, s->GetDataSetMeta("d03"));
  EXPECT_EQ(d03.status(), "DONE");
  EXPECT_EQ(d03.attributes.count("model"), 0u);
  EXPECT_EQ(d03.attributes.at("ok"), grid::AttributeValue::Bool(true));
  EXPECT_EQ(d03.attributes.at("create_time"), grid::AttributeValue::Int64(1030));
  EXPECT_EQ(d03.attributes.at("resolution"), grid::AttributeValue::Double(0.5));
  EXPECT_EQ(d03.attributes.at("source"), grid::AttributeValue::String("ECMWF"));  // 3 % 3 == 0
  EXPECT_TRUE(d03.variables.empty());
}

TEST_F(QueryCliTest, MetaPutFromFile) {
  const std::string file = dir_.Sub("metas.jsonl");
  std::ofstream(file) << Catalogue();
  RunResult r = Run({"meta", "put", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "12 dataset meta(s) created, 0 updated\n");
  ExpectError(Run({"meta", "put", dir_.Sub("missing.jsonl")}), {"cannot open", "missing.jsonl"});
}

TEST_F(QueryCliTest, MetaPutBadLineWritesNothing) {
  const std::string good = "{\"id\": \"a\", \"attributes\": {\"x\": 1}}\n";
  ExpectError(Run({"meta", "put"}, good + good + "{\"id\": \"c\", \"attributes\": [1, 2]}\n"),
              {"line 3: 'attributes' must be an object, not an array"});
  EXPECT_FALSE(std::filesystem::exists(store()));  // not even an empty store
  ExpectError(Run({"meta", "put"}, good + "{\"id\": \"b\", \"attributes\": {\"x\": 1}\n"),
              {"line 2: not valid JSON"});
  ExpectError(Run({"meta", "put"}, good + "\n{\"attributes\": {}}\n"), {"line 3: 'id' is missing"});
  ExpectError(Run({"meta", "put"}, "{\"id\": \"a\", \"attributes\": {\"v\": [1]}}\n"),
              {"line 1: attribute 'v' must be a string, number, boolean or null"});
  ExpectError(Run({"meta", "put"}, "\n\n"), {"the input holds no JSON lines"});

  // A store with data: a bad line later in the input leaves every dataset as it was.
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.create_if_missing = true}));
    grid::DataSetMeta meta;
    meta.id = "a";
    meta.variables.push_back({.name = "T"});
    ASSERT_OK(s->PutDataSetMeta(meta));
  }
  ASSERT_EQ(Run({"meta", "put"}, good).exit_code, 0);
  ExpectError(Run({"meta", "put"}, "{\"id\": \"a\", \"attributes\": {\"x\": 2}}\n{\"id\": 7}\n"),
              {"line 2: 'id' must be a string, not a number"});
  ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.read_only = true}));
  ASSERT_OK_AND_ASSIGN(auto a, s->GetDataSetMeta("a"));
  EXPECT_EQ(a.attributes.at("x"), grid::AttributeValue::Int64(1));
}

TEST_F(QueryCliTest, WhereSortOffsetLimit) {
  LoadCatalogue();
  const std::string where = "status = 'DONE' and (source = 'ECMWF' or source = 'NMC')";
  EXPECT_EQ(QueryIds({"--where", where, "--sort", "create_time:desc"}),
            (IdList{"d10", "d06", "d04", "d00"}));
  EXPECT_EQ(QueryIds({"--where", where, "--sort", "create_time"}),
            (IdList{"d00", "d04", "d06", "d10"}));
  EXPECT_EQ(
      QueryIds({"--where", where, "--sort", "create_time:desc", "--offset", "1", "--limit", "2"}),
      (IdList{"d06", "d04"}));
  EXPECT_EQ(QueryIds({"--where", where, "--offset", "10"}), IdList{});

  RunResult r = Run({"query", "--where", where, "--sort", "create_time:desc", "--limit", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("d10  ", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("2 of 4 dataset(s)\n"));
  EXPECT_EQ(r.err, "");  // answered from the index: no scan note
}

TEST_F(QueryCliTest, JsonHasThePlan) {
  LoadCatalogue();
  RunResult r = Run({"query", "--where", "status = 'DONE' and source in ('NMC', 'JMA')", "--sort",
                     "create_time:desc", "--limit", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["total"], 4);  // d02, d04, d08, d10
  ASSERT_EQ(doc["datasets"].size(), 1u);
  EXPECT_EQ(doc["datasets"][0]["id"], "d10");
  EXPECT_EQ(doc["datasets"][0]["attributes"]["source"], "NMC");
  EXPECT_TRUE(doc["plan"].is_string());
  EXPECT_FALSE(doc["plan"].get<std::string>().empty());
  EXPECT_EQ(doc["scanned"], false);
  ASSERT_TRUE(doc["next_token"].is_string());
  EXPECT_FALSE(doc["next_token"].get<std::string>().empty());  // more pages follow
}

TEST_F(QueryCliTest, IdsPrintsTheIdsAlone) {
  LoadCatalogue();
  const std::string where = "status = 'DONE' and (source = 'ECMWF' or source = 'NMC')";
  RunResult r = Run({"query", "--where", where, "--sort", "create_time:desc", "--ids"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "d10\nd06\nd04\nd00\n");  // one per line, nothing else: for scripts
  EXPECT_EQ(r.err, "");
  r = Run({"query", "--where", "tag = 'x'", "--ids"});  // not indexed: scanned, said on stderr
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "d05\n");
  EXPECT_THAT(r.err, HasSubstr("scanned"));

  r = Run({"query", "--where", where, "--sort", "create_time", "--limit", "3", "--ids", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["total"], 4);
  ASSERT_EQ(doc["datasets"].size(), 3u);
  EXPECT_EQ(doc["datasets"][0], nlohmann::json({{"id", "d00"}}));  // the id alone
  EXPECT_EQ(doc["datasets"][2]["id"], "d06");
  EXPECT_FALSE(doc["next_token"].get<std::string>().empty());
}

TEST_F(QueryCliTest, EveryOperator) {
  LoadCatalogue();
  auto q = [&](const std::string& where) { return QueryIds({"--where", where}); };
  EXPECT_EQ(q("source != 'ECMWF' and status == 'DONE'"), (IdList{"d02", "d04", "d08", "d10"}));
  EXPECT_EQ(q("create_time < 1020"), (IdList{"d00", "d01"}));
  EXPECT_EQ(q("create_time <= 1020"), (IdList{"d00", "d01", "d02"}));
  EXPECT_EQ(q("create_time > 1090"), (IdList{"d10", "d11"}));
  EXPECT_EQ(q("create_time >= 1090"), (IdList{"d09", "d10", "d11"}));
  EXPECT_EQ(q("model prefix 'gfs' and create_time < 1060"), (IdList{"d00", "d01", "d04", "d05"}));
  EXPECT_EQ(q("tag exists"), IdList{"d05"});
  EXPECT_EQ(q("not source in ('ECMWF', 'NMC')"), (IdList{"d02", "d05", "d08", "d11"}));
  EXPECT_EQ(q("source not in ('ECMWF', 'NMC') AND NOT status = 'DONE'"), (IdList{"d05", "d11"}));
  EXPECT_EQ(q("resolution > 0.3 and create_time < 1040"), (IdList{"d01", "d03"}));
  EXPECT_EQ(q("create_time < now - 1 day"), q("create_time exists"));
  EXPECT_EQ(q("create_time > now - 1 day"), IdList{});
}

TEST_F(QueryCliTest, ScanWithoutCoveringIndexSaysSo) {
  LoadCatalogue();
  RunResult r = Run({"query", "--where", "resolution = 0.5 or model = 'ifs'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("9 of 9 dataset(s)"));  // odd i, and 2, 6, 10
  EXPECT_EQ(r.err, "(scanned: index 'main' does not cover resolution)\n");
  // Checking an unindexed condition on the index's candidates is not a scan.
  r = Run({"query", "--where", "resolution = 0.5 and create_time < 1040"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 of 2 dataset(s)"));
  EXPECT_EQ(r.err, "");
}

TEST_F(QueryCliTest, QueryWithoutAnyIndexScans) {
  LoadCatalogue(/*with_index=*/false);
  RunResult r = Run({"query", "--where", "source = 'JMA'", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Ids(r), (IdList{"d02", "d05", "d08", "d11"}));
  EXPECT_EQ(nlohmann::json::parse(r.out)["scanned"], true);
  r = Run({"query", "--where", "source = 'JMA'"});
  EXPECT_EQ(r.err, "(scanned: no index covers source)\n");
  r = Run({"query", "--sort", "create_time:desc", "--limit", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("d11  ", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("3 of 12 dataset(s)"));
}

TEST_F(QueryCliTest, ChoosesTheIndexCoveringMostFields) {
  LoadCatalogue();
  ASSERT_EQ(Run({"index", "create", "res", "resolution:double"}).exit_code, 0);
  auto plan = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "query");
    args.push_back("--json");
    RunResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    return doc.is_discarded() ? r.out : doc["plan"].get<std::string>();
  };
  EXPECT_THAT(plan({"--where", "resolution = 0.5"}), HasSubstr("'res'"));
  EXPECT_THAT(plan({"--where", "resolution = 0.5 and model = 'ifs' and source = 'JMA'"}),
              HasSubstr("'main'"));
  EXPECT_THAT(plan({"--index", "res", "--where", "model = 'ifs'"}), HasSubstr("'res'"));
  RunResult r = Run({"query", "--index", "main", "--where", "resolution = 0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("6 of 6 dataset(s)"));
  EXPECT_EQ(r.err, "(scanned: index 'main' does not cover resolution)\n");
}

TEST_F(QueryCliTest, SyntaxErrorPointsAtTheColumn) {
  LoadCatalogue();
  RunResult r = Run({"query", "--where", "status = 'DONE' and x >"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  // One sentence, then the expression and a caret under column 24.
  EXPECT_EQ(r.err,
            "gridstore: --where: column 24: expected a value after '>'\n"
            "  status = 'DONE' and x >\n"
            "                         ^\n");
  r = Run({"query", "--where", "status = 'DONE"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("column 10: unterminated string"));
  r = Run({"query", "--where", "(a = 1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("column 7: missing ')' to close the '(' at column 1"));
  r = Run({"query", "--where", ""});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("the expression is empty"));
}

TEST_F(QueryCliTest, BadArguments) {
  LoadCatalogue();
  ExpectError(Run({"query", "--index", "nope"}), {"no index named 'nope'", "'main'"});
  ExpectError(Run({"query", "--sort", "create_time:up"}), {"--sort 'create_time:up'"});
  ExpectError(Run({"query", "--offset", "-1"}), {"--offset '-1' is out of range"});
  ExpectError(Run({"query", "--where", "create_time = 'x'"}), {"create_time"});
}

TEST_F(QueryCliTest, UnknownIndexOnStoreWithoutIndexes) {
  LoadCatalogue(/*with_index=*/false);
  ExpectError(Run({"query", "--index", "main"}),
              {"no index named 'main' in this store (it has none"});
  ExpectError(Run({"index", "drop", "main"}), {"main"});
}

}  // namespace
}  // namespace gridstore
