// Copyright 2026 The GridStore Authors.
//
// Regression tests for the data-safety issue, through the real `gridstore` binary on real
// RocksDB stores: --allow-incomplete, datasets without variables, --origin without --shape, JSON
// of bytes that are not UTF-8, control bytes in ids and names, ids that begin with '-', integers
// beyond int64 in `meta put`, --attr typing, variables named t/z/x/y, deep --where nesting, and
// exceptions that used to escape main. (Bad options that must leave no store behind: the
// catalogue in bad_input_test.cc; output files: output_file_test.cc.)
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"
#include "tools/text_escape.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using testing::ExpectCliError;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;
using testing::ScopedTempDir;
using testing::ShellQuote;
using namespace std::string_literals;

class CliSafetyTest : public ::testing::Test {
 protected:
  std::string store() const { return dir_.Sub("store"); }

  RunResult Run(const std::vector<std::string>& args, const std::string& stdin_text = "",
                const std::string& prefix = "") {
    return RunGridStore(dir_.path().string(), store(), args, stdin_text, prefix);
  }

  // Imports a file with float T and U over (time 2, level 1, lat 30, lon 40) as `id`.
  void Import(const std::string& id) {
    const std::string file = dir_.Sub("in.nc");
    if (!fs::exists(file)) testing::WriteTestNetCdf(file, {"T", "U"});
    RunResult r = Run({"import", file, "--dataset=" + id});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  ScopedTempDir dir_;
};

// netCDF-C is loaded only for netCDF input or output: without it, importing fails with one clear
// line and creates no store, while fetching to csv still works.
TEST_F(CliSafetyTest, WithoutNetCdfOnlyNetCdfWorkFailsAndSaysWhy) {
  Import("d");
  const std::string missing = "GRIDSTORE_NETCDF_LIBRARY=/nonexistent/libnetcdf.so.19 ";
  RunResult r = RunGridStore(dir_.path().string(), dir_.Sub("other"),
                             {"import", dir_.Sub("in.nc"), "--dataset", "e"}, "", missing);
  ExpectCliError(r, {"netCDF support is unavailable: cannot load /nonexistent/libnetcdf.so.19",
                     "install netCDF-C", "$GRIDSTORE_NETCDF_LIBRARY"});
  EXPECT_FALSE(fs::exists(dir_.Sub("other")));
  // A small answer is a classic file GridStore writes itself; a netCDF-4 one needs netCDF-C.
  r = Run({"fetch", "d", "--variables", "T", "--format", "nc", "-o", dir_.Sub("out.nc")}, "",
          missing);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_.Sub("out.nc")));
  r = Run({"fetch", "d", "--variables", "T", "--format", "nc", "-o", dir_.Sub("out4.nc")}, "",
          missing + "GRIDSTORE_FETCH_NC_CLASSIC_BYTES=0 ");
  ExpectCliError(r, {"netCDF support is unavailable"});
  EXPECT_FALSE(fs::exists(dir_.Sub("out4.nc")));
  r = Run({"fetch", "d", "--variables", "T", "--shape", "1,1,1,1"}, "", missing);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("@t,@z,@x,@y"));
}

// Every byte a terminal could act on is escaped: only printable ASCII, newlines and well-formed
// UTF-8 above the C1 controls remain.
void ExpectPrintable(const std::string& text) {
  EXPECT_TRUE(tools::IsValidUtf8(text)) << text;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c != 0x7f)) << "byte " << int(c) << " in " << text;
    if (c == 0xc2 && i + 1 < text.size()) {
      const auto d = static_cast<unsigned char>(text[i + 1]);
      EXPECT_FALSE(d >= 0x80 && d <= 0x9f) << "a C1 control in " << text;
    }
  }
}

TEST_F(CliSafetyTest, AllowIncompleteReadsWithAWarningAndWithoutItFails) {
  Import("d");
  // A DONE dataset: no warning with or without the flag.
  RunResult r = Run({"fetch", "d", "--variables", "T", "--shape", "1,1,1,1", "--allow-incomplete"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");

  ASSERT_EQ(Run({"meta", "put"}, R"({"id": "d", "attributes": {"status": "INIT"}})").exit_code, 0);
  ExpectCliError(Run({"fetch", "d", "--variables", "T", "--shape", "1,1,1,1"}),
                 {"dataset 'd' is not complete", "'INIT'"});
  r = Run({"fetch", "d", "--variables", "T", "--shape", "1,1,1,2", "--allow-incomplete"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "gridstore: warning: dataset 'd' is not complete (status 'INIT'); blocks not yet "
            "written read as fill values\n");
  EXPECT_THAT(r.out, HasSubstr("0,0,0,1,0,10,20,31,100.25\n"));
  // Every output path takes the flag: nc too.
  r = Run({"fetch", "d", "--variables", "T", "--allow-incomplete", "-o", dir_.Sub("t.nc")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);

  // No status at all.
  ASSERT_EQ(Run({"meta", "put"}, R"({"id": "d", "attributes": {"status": null}})").exit_code, 0);
  ExpectCliError(Run({"fetch", "d", "--variables", "T"}), {"not complete", "unset"});
  r = Run({"fetch", "d", "--variables", "T", "--shape", "1,1,1,1", "--allow-incomplete"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: dataset 'd' is not complete (status unset)"));
}

// `fetch ID --origin ...` of a dataset made by `meta put` read variables[0] of an empty list.
TEST_F(CliSafetyTest, DatasetWithoutVariablesIsAnErrorNotACrash) {
  ASSERT_EQ(Run({"meta", "put"}, R"({"id": "cat", "attributes": {"status": "DONE"}})").exit_code,
            0);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {},
           {"--origin", "0,0,0,0"},
           {"--origin", "1,2,3,4"},
           {"--shape", "1,1,1,1"},
           {"--explain"},
           {"--origin", "0,0,0,0", "--format", "nc", "-o", dir_.Sub("x.nc")},
       }) {
    std::vector<std::string> args = {"fetch", "cat"};
    args.insert(args.end(), extra.begin(), extra.end());
    ExpectCliError(Run(args), {"dataset 'cat' has no variables"});
  }
  EXPECT_FALSE(fs::exists(dir_.Sub("x.nc")));
  ExpectCliError(Run({"fetch", "cat", "--variables", "T", "--origin", "0,0,0,0"}),
                 {"'cat' has no variables"});
}

// `--origin 0,0,50,0` without --shape said "shape 0 must be at least 1": the user gave no shape.
TEST_F(CliSafetyTest, OriginWithoutShapeBeyondTheExtentIsAnOriginError) {
  Import("d");
  RunResult r = Run({"fetch", "d", "--variables", "T", "--origin", "0,0,50,0"});
  ExpectCliError(r, {"--origin '0,0,50,0'", "variable 'T'", "axis x (lat)",
                     "origin 50 is beyond the extent 30", "the largest origin is 29"});
  EXPECT_THAT(r.err, Not(HasSubstr("shape")));
  ExpectCliError(Run({"fetch", "d", "--origin", "2,0,0,0"}),
                 {"variable 'T'", "axis t (time)", "origin 2 is beyond the extent 2"});
  ExpectCliError(Run({"fetch", "d", "--variables", "U", "--origin", "0,0,0,40"}),
                 {"variable 'U'", "axis y (lon)", "beyond the extent 40"});
  ExpectCliError(Run({"fetch", "d", "--origin", "0,0,-1,0"}), {"origin -1 is negative"});
  r = Run({"fetch", "d", "--variables", "T", "--origin", "1,0,29,39"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2);  // header and the last point
}

// `info --json` and `query --json` aborted (nlohmann type_error 316) on ids, names or values that
// are not UTF-8, which the data model allows.
TEST_F(CliSafetyTest, JsonOutputOfBytesThatAreNotUtf8) {
  const std::string id = "bad\xff\x01id";
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.create_if_missing = true}));
    grid::DataSetMeta meta;
    meta.id = id;
    grid::VariableMeta v;
    v.name = "v\xfe";
    v.shape = {1, 1, 2, 2};
    v.attributes["units"] = grid::AttributeValue::String("K\xff");
    meta.variables.push_back(v);
    meta.attributes["note"] = grid::AttributeValue::String("\xfe\x1b[2J");
    meta.attributes["k\xff"] = grid::AttributeValue::Int64(1);
    meta.set_status(grid::kStatusDone);
    ASSERT_OK(s->PutDataSetMeta(meta));
  }
  RunResult r = Run({"info", "--json", "--", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["id"], "bad\xef\xbf\xbd\x01id");  // U+FFFD for the byte that is not UTF-8
  EXPECT_EQ(doc["id_hex"], tools::HexBytes(id));
  EXPECT_EQ(doc["attributes"]["note"], "\xef\xbf\xbd\x1b[2J");
  EXPECT_EQ(doc["attributes"]["k\xef\xbf\xbd"], 1);
  EXPECT_EQ(doc["variables"][0]["name"], "v\xef\xbf\xbd");

  r = Run({"query", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["datasets"].size(), 1u);
  EXPECT_EQ(doc["datasets"][0]["id_hex"], tools::HexBytes(id));
  r = Run({"query", "--json", "--where", "note prefix '\xfe'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["total"], 1);

  r = Run({"fetch", "--format", "json", "--", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["variables"]["v\xef\xbf\xbd"]["units"], "K\xef\xbf\xbd");

  // An id that is UTF-8 gets no id_hex.
  ASSERT_EQ(Run({"meta", "put"}, R"({"id": "caf\u00e9\u0001"})").exit_code, 0);
  r = Run({"info", "--json", "caf\xc3\xa9\x01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["id"], "caf\xc3\xa9\x01");
  EXPECT_FALSE(doc.contains("id_hex"));
}

// Control and escape bytes in ids, names and values were printed raw to the terminal.
TEST_F(CliSafetyTest, ControlBytesAreEscapedInEveryHumanReadableOutput) {
  const std::string id = "\x1b]0;owned\x07run\x01\x7f\xc2\x9b";
  const std::string shown = "\\x1b]0;owned\\x07run\\x01\\x7f\\xc2\\x9b";
  testing::WriteTestNetCdf(dir_.Sub("in.nc"), {"T"});
  RunResult r = Run({"import", dir_.Sub("in.nc"), "--dataset", id, "--attr", "note=\x1b[2J"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectPrintable(r.out);
  ExpectPrintable(r.err);
  EXPECT_THAT(r.out, HasSubstr("imported '" + shown + "'"));
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store()));
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, s->GetDataSetMeta(id));
    meta.variables[0].attributes["long_name"] = grid::AttributeValue::String("bell\x07");
    meta.coordinates[0].name = "ti\x1bme";
    ASSERT_OK(s->PutDataSetMeta(meta));
    std::string key = grid::DataKey(
        grid::BlockAddress{id, meta.key_incarnation(), "T", grid::kPlaneLayout, 0, 0, 0, 0});
    std::string value;
    ASSERT_OK(KvStoreOf(s.get())->Get({}, storage::Table::kData, key, &value));
    value[value.size() - 5] ^= 0x10;
    ASSERT_OK(KvStoreOf(s.get())->Put({}, storage::Table::kData, key, value));
  }
  r = Run({"info", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectPrintable(r.out);
  EXPECT_THAT(r.out, HasSubstr("dataset      " + shown + "\n"));
  EXPECT_THAT(r.out, HasSubstr("note = \"\\x1b[2J\""));
  EXPECT_THAT(r.out, HasSubstr("\"bell\\x07\""));
  EXPECT_THAT(r.out, HasSubstr("ti\\x1bme"));

  r = Run({"query"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectPrintable(r.out);
  ExpectPrintable(r.err);
  EXPECT_EQ(r.out.rfind(shown + "  DONE", 0), 0u) << r.out;

  r = Run({"verify", id});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ExpectPrintable(r.out);
  EXPECT_THAT(r.out, HasSubstr("CORRUPT dataset '" + shown + "'"));

  r = Run({"fetch", id, "--variables", "T", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectPrintable(r.out);

  r = Run({"fetch", id, "--variables", "T\x1b[1m"});
  ExpectCliError(r, {"\\x1b[1m"});
  ExpectPrintable(r.err);
  r = Run({"info", "no\x1b[2Jsuch"});
  ExpectCliError(r, {"'no\\x1b[2Jsuch' does not exist"});
  ExpectPrintable(r.err);
  r = Run({"query", "--where", "a = \x1b[2J"});
  EXPECT_EQ(r.exit_code, 1);
  ExpectPrintable(r.err);
  r = Run({"query", "--index", "i\x1b"});
  ExpectCliError(r, {"'i\\x1b'"});
  ExpectPrintable(r.err);

  r = Run({"delete", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectPrintable(r.out);
  EXPECT_EQ(r.out, "deleted '" + shown + "'\n");
}

// An id beginning with '-' could be imported but not addressed.
TEST_F(CliSafetyTest, IdsBeginningWithDashGoAfterDoubleDash) {
  testing::WriteTestNetCdf(dir_.Sub("in.nc"), {"T"});
  ASSERT_EQ(Run({"import", dir_.Sub("in.nc"), "--dataset=-x"}).exit_code, 0);
  RunResult r = Run({"import", dir_.Sub("in.nc"), "--dataset=--y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"import", dir_.Sub("in.nc"), "--dataset", "-z"});  // a value, after an option
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported '-z'"));
  r = Run({"info", "--", "-x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("dataset      -x\n"));
  r = Run({"info", "--json", "--", "--y"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["id"], "--y");
  r = Run({"fetch", "--variables", "T", "--shape", "1,1,1,1", "--", "-x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0,0,0,0,0,10,20,30,100\n"));
  r = Run({"verify", "--", "-x"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Without `--` it is a usage error that says what to do, on one line.
  r = Run({"info", "-x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("goes after `--`: gridstore info -- -x"));
  r = Run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("goes after `--`"));
  r = Run({"delete", "--", "-x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted '-x'\n");
  ExpectCliError(Run({"info", "--", "-x"}), {"'-x' does not exist"});
}

// `meta put` stored 99999999999999999999 as a double; docs say it is an error.
TEST_F(CliSafetyTest, MetaPutIntegersBeyondInt64AreErrorsNamingLineAndKey) {
  for (const std::string& n : {"99999999999999999999"s, "-99999999999999999999"s,
                               "18446744073709551616"s, "18446744073709551615"s}) {
    RunResult r = Run({"meta", "put"},
                      "{\"id\": \"a\"}\n{\"id\": \"b\", \"attributes\": {\"n\": " + n + "}}\n");
    ExpectCliError(r, {"line 2", "attribute 'n'", n, "out of the int64 range"});
    EXPECT_FALSE(fs::exists(store())) << n;
  }
  RunResult r =
      Run({"meta", "put"}, R"({"id": "a", "attributes": {"big": 9223372036854775807, "neg": )"
                           R"(-9223372036854775808, "d": 1e3, "f": 1.5e300}})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "--json", "a"});
  auto attrs = nlohmann::json::parse(r.out)["attributes"];
  EXPECT_EQ(attrs["big"], INT64_MAX);
  EXPECT_EQ(attrs["neg"], INT64_MIN);
  EXPECT_TRUE(attrs["d"].is_number_float());
  EXPECT_EQ(attrs["d"], 1000.0);
}

// `--attr run=01` became the integer 1.
TEST_F(CliSafetyTest, AttrValuesAreTypedLikeJsonLiterals) {
  testing::WriteTestNetCdf(dir_.Sub("in.nc"), {"T"});
  ExpectCliError(
      Run({"import", dir_.Sub("in.nc"), "--dataset", "d", "--attr", "n=99999999999999999999"}),
      {"--attr 'n=99999999999999999999'", "out of the int64 range"});
  EXPECT_FALSE(fs::exists(store()));
  RunResult r = Run({"import", dir_.Sub("in.nc"), "--dataset", "d",       "--attr", "run=01",
                     "--attr", "neg=-01",         "--attr",    "zero=0",  "--attr", "mzero=-0",
                     "--attr", "e=1e3",           "--attr",    "plus=+1", "--attr", "q='7'",
                     "--attr", "ok=true",         "--attr",    "inf=inf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "--json", "d"});
  auto attrs = nlohmann::json::parse(r.out)["attributes"];
  EXPECT_EQ(attrs["run"], "01");
  EXPECT_EQ(attrs["neg"], "-01");
  EXPECT_EQ(attrs["zero"], 0);
  EXPECT_TRUE(attrs["zero"].is_number_integer());
  EXPECT_EQ(attrs["mzero"], 0);
  EXPECT_TRUE(attrs["e"].is_number_float());
  EXPECT_EQ(attrs["e"], 1000.0);
  EXPECT_EQ(attrs["plus"], "+1");
  EXPECT_EQ(attrs["q"], "7");
  EXPECT_EQ(attrs["ok"], true);
  EXPECT_EQ(attrs["inf"], "inf");
}

// ERA5's geopotential is `z`: the csv header had two `z` columns, and a json row's level index
// was replaced by the variable's value.
TEST_F(CliSafetyTest, VariablesNamedTZXYKeepTheirOwnColumns) {
  testing::WriteTestNetCdf(dir_.Sub("axes.nc"), {"t", "z", "x", "y"}, 2, 3, 4, 5);
  ASSERT_EQ(Run({"import", dir_.Sub("axes.nc"), "--dataset", "era"}).exit_code, 0);
  RunResult r = Run({"fetch", "era", "--origin", "1,2,3,4", "--shape", "1,1,1,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Point (1, 2, 3, 4) is value number 1*60 + 2*20 + 3*5 + 4 = 119 of each variable.
  EXPECT_EQ(r.out,
            "@t,@z,@x,@y,time,level,lat,lon,t,x,y,z\n"
            "1,2,3,4,1,12,23,34,129.75,329.75,429.75,229.75\n");
  r = Run({"fetch", "era", "--origin", "1,2,3,4", "--shape", "1,1,1,1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["rows"][0];
  EXPECT_EQ(row["@z"], 2);
  EXPECT_EQ(row["z"], 229.75);
  EXPECT_EQ(row["@t"], 1);
  EXPECT_EQ(row["t"], 129.75);
  EXPECT_EQ(row.size(), 12u);
}

TEST_F(CliSafetyTest, DeepWhereNestingIsAnErrorNotACrash) {
  ASSERT_EQ(Run({"meta", "put"}, R"({"id": "a", "attributes": {"n": 1}})").exit_code, 0);
  std::string nots;
  for (int i = 0; i < 20000; ++i) nots += "not ";
  for (const std::string& where :
       {std::string(20000, '(') + "n = 1" + std::string(20000, ')'), nots + "n = 1"}) {
    RunResult r = Run({"query", "--where", where});
    EXPECT_EQ(r.exit_code, 1) << r.err.substr(0, 200);
    EXPECT_THAT(r.err, HasSubstr("more than 100 deep (the limit)"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3);
  }
}

// An exception from the standard library (here std::bad_alloc: a 6.4 GB result under a 2 GiB
// address-space limit) used to escape main and abort. Now: one sentence, exit status 1. (fetch -o
// streams in slabs of 64 MiB; GRIDSTORE_FETCH_SLAB_BYTES makes the slab the whole result.)
TEST_F(CliSafetyTest, ExceptionsBecomeOneSentenceAndExitStatusOne) {
  GRIDSTORE_SKIP_UNDER_ADDRESS_LIMIT();
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store(), {.create_if_missing = true}));
    grid::DataSetMeta meta;
    meta.id = "huge";
    grid::VariableMeta v;
    v.name = "T";
    v.shape = {1, 1, 40000, 40000};
    meta.variables.push_back(v);
    meta.set_status(grid::kStatusDone);
    ASSERT_OK(s->PutDataSetMeta(meta));
  }
  RunResult r = Run({"fetch", "huge", "--format", "npy", "-o", dir_.Sub("huge.npy")}, "",
                    "ulimit -v 2097152; GRIDSTORE_FETCH_SLAB_BYTES=10000000000 ");
  ExpectCliError(r, {"out of memory"});
  EXPECT_FALSE(fs::exists(dir_.Sub("huge.npy")));
  EXPECT_THAT(testing::TempLeftovers(dir_.path().string()), ::testing::IsEmpty());
}

// Threads that cannot start (too little address space for their stacks) are an error, not an
// abort, and no store is created for nothing (issue 12 item 8).
TEST_F(CliSafetyTest, ThreadsThatCannotStartLeaveNoStore) {
  GRIDSTORE_SKIP_UNDER_ADDRESS_LIMIT();
  const std::string file = dir_.Sub("in.nc");
  testing::WriteTestNetCdf(file, {"T"});
  RunResult r =
      Run({"import", file, "--dataset", "d", "--threads", "1024"}, "", "ulimit -v 600000; ");
  ExpectCliError(r, {"cannot start 1024 worker threads"});
  EXPECT_FALSE(fs::exists(store()));
}

// Two processes creating one new store at once: each either writes or is told the store is in
// use, never that it is "not a GridStore store", and the store is whole afterwards (issue 12
// item 8: creation is atomic).
TEST_F(CliSafetyTest, ProcessesCreatingOneStoreAtOnceNeverSeeItHalfMade) {
  for (int round = 0; round < 8; ++round) {
    const std::string store = dir_.Sub("new" + std::to_string(round));
    std::vector<std::string> outputs(3);
    std::string cmd;
    for (int p = 0; p < 3; ++p) {
      cmd += "echo '{\"id\": \"p" + std::to_string(p) + "\", \"attributes\": {}}' | " +
             ShellQuote(GRIDSTORE_CLI) + " --store " + ShellQuote(store) + " meta put - > " +
             ShellQuote(dir_.Sub("out" + std::to_string(p))) + " 2>&1; echo $? >> " +
             ShellQuote(dir_.Sub("codes" + std::to_string(p))) + " & ";
    }
    cmd += "wait";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    int succeeded = 0;
    for (int p = 0; p < 3; ++p) {
      const std::string out = ReadFile(dir_.Sub("out" + std::to_string(p)));
      const std::string code = ReadFile(dir_.Sub("codes" + std::to_string(p)));
      std::remove(dir_.Sub("codes" + std::to_string(p)).c_str());
      if (code == "0\n") {
        ++succeeded;
      } else {
        EXPECT_THAT(out, HasSubstr("in use by another process")) << out;
      }
      EXPECT_THAT(out, Not(HasSubstr("not a GridStore store"))) << out;
    }
    EXPECT_GE(succeeded, 1);
    RunResult r = RunGridStore(dir_.path().string(), store, {"query"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
}

}  // namespace
}  // namespace gridstore
