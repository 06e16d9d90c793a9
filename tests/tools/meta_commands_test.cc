// Copyright 2026 The GridStore Authors.
//
// The pieces of `gridstore query`, `index` and `meta put` below the command line: --sort and
// FIELD:TYPE parsing, the fields an index does not cover, the JSON-lines parser, and PutMetas on a
// real store. (The choice of index is the library's: tests/grid/grid_query_test.cc.)
#include "tools/meta_commands.h"

#include <string>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/grid/grid_store.h"
#include "tests/test_util.h"

namespace gridstore::tools {
namespace {

using grid::IndexFieldType;
using grid::MetaIndexInfo;
using grid::SortOrder;
using ::testing::HasSubstr;

TEST(MetaCommandsTest, ParseSort) {
  ASSERT_OK_AND_ASSIGN(auto keys, ParseSort("create_time:desc,id,source:asc"));
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0].field, "create_time");
  EXPECT_EQ(keys[0].order, SortOrder::kDescending);
  EXPECT_EQ(keys[1].field, "id");
  EXPECT_EQ(keys[1].order, SortOrder::kAscending);
  EXPECT_EQ(keys[2].field, "source");
  EXPECT_EQ(keys[2].order, SortOrder::kAscending);
  // Empty is a mistake, as over HTTP and in Python (issue 29, 4.7: one grammar).
  EXPECT_THAT(ParseSort("").status().message(), HasSubstr("--sort is empty"));
  EXPECT_THAT(ParseSort("t:down").status().message(),
              HasSubstr("--sort 't:down': the order must be asc or desc"));
  EXPECT_THAT(ParseSort(":desc").status().message(), HasSubstr("the field name is empty"));
}

TEST(MetaCommandsTest, ParseIndexField) {
  ASSERT_OK_AND_ASSIGN(auto f, ParseIndexField("create_time:int64"));
  EXPECT_EQ(f.name, "create_time");
  EXPECT_EQ(f.type, IndexFieldType::kInt64);
  ASSERT_OK_AND_ASSIGN(f, ParseIndexField("a:b:string"));  // the last colon splits
  EXPECT_EQ(f.name, "a:b");
  EXPECT_EQ(f.type, IndexFieldType::kString);
  ASSERT_OK_AND_ASSIGN(f, ParseIndexField("x:double"));
  EXPECT_EQ(f.type, IndexFieldType::kDouble);
  ASSERT_OK_AND_ASSIGN(f, ParseIndexField("x:bool"));
  EXPECT_EQ(f.type, IndexFieldType::kBool);
  EXPECT_THAT(ParseIndexField("status").status().message(),
              HasSubstr("index field 'status': expected FIELD:TYPE"));
  EXPECT_THAT(ParseIndexField(":int64").status().message(), HasSubstr("expected FIELD:TYPE"));
  EXPECT_THAT(ParseIndexField("n:int").status().message(),
              HasSubstr("index field 'n:int': unknown type 'int'"));
  EXPECT_EQ(FormatIndexSchema({{{"a", IndexFieldType::kString}, {"b", IndexFieldType::kInt64}}}),
            "a:string, b:int64");
}

TEST(MetaCommandsTest, UncoveredFields) {
  const MetaIndexInfo b{
      "b", {{{"source", IndexFieldType::kString}, {"model", IndexFieldType::kString}}}};
  ASSERT_OK_AND_ASSIGN(auto q,
                       grid::ParseQuery("source = 'x' and model = 'y' or status = 'DONE'", 0));
  ASSERT_OK_AND_ASSIGN(auto other, grid::ParseQuery("resolution = 1", 0));
  EXPECT_EQ(UncoveredFields(q, {{"create_time", SortOrder::kAscending}}, &b.schema),
            "status, create_time");
  EXPECT_EQ(UncoveredFields(other, {}, nullptr), "resolution");
  EXPECT_EQ(QueryFields(q), (std::vector<std::string>{"source", "model", "status"}));
}

TEST(MetaCommandsTest, ParseMetaPutLineTypes) {
  ASSERT_OK_AND_ASSIGN(
      auto line,
      ParseMetaPutLine(R"({"id": "ec/1", "attributes": {"s": "x", "i": -3, "u": 7, "d": 1.5,
                          "b": true, "gone": null}})",
                       1));
  EXPECT_EQ(line.id, "ec/1");
  ASSERT_EQ(line.set.size(), 5u);
  EXPECT_EQ(line.set.at("s"), grid::AttributeValue::String("x"));
  EXPECT_EQ(line.set.at("i"), grid::AttributeValue::Int64(-3));
  EXPECT_EQ(line.set.at("u"), grid::AttributeValue::Int64(7));
  EXPECT_EQ(line.set.at("d"), grid::AttributeValue::Double(1.5));
  EXPECT_EQ(line.set.at("b"), grid::AttributeValue::Bool(true));
  EXPECT_EQ(line.remove, std::vector<std::string>{"gone"});
  ASSERT_OK_AND_ASSIGN(line, ParseMetaPutLine(R"({"id": "only-id"})", 2));
  EXPECT_TRUE(line.set.empty());
}

TEST(MetaCommandsTest, ParseMetaPutLineErrors) {
  auto err = [](std::string_view text) {
    auto r = ParseMetaPutLine(text, 3);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_THAT(err(R"({"id": "a", "attributes": [1]})"),
              HasSubstr("line 3: 'attributes' must be an object, not an array"));
  EXPECT_THAT(err(R"({"attributes": {}})"), HasSubstr("line 3: 'id' is missing"));
  EXPECT_THAT(err(R"({"id": 5})"), HasSubstr("line 3: 'id' must be a string, not a number"));
  EXPECT_THAT(err(R"({"id": ""})"), HasSubstr("line 3: "));
  EXPECT_THAT(err(R"({"id": "a", "attrs": {}})"), HasSubstr("line 3: unknown key 'attrs'"));
  EXPECT_THAT(err(R"({"id": "a", "attributes": {"x": {"y": 1}}})"),
              HasSubstr("line 3: attribute 'x' must be a string, number, boolean or null"));
  EXPECT_THAT(err(R"({"id": "a", "attributes": {"x": 18446744073709551615}})"),
              HasSubstr("line 3: attribute 'x': 18446744073709551615 is out of the int64 range"));
  EXPECT_THAT(err(R"({"id": "a", "attributes": {"": 1}})"),
              HasSubstr("line 3: an attribute name is empty"));
  EXPECT_THAT(err(R"({"id": "a", )"), HasSubstr("line 3: not valid JSON ("));
  EXPECT_THAT(err(R"(["a"])"), HasSubstr("line 3: expected a JSON object"));
}

TEST(MetaCommandsTest, PutMetasBatchesMergeRepeatedIdsAcrossBatchBoundaries) {
  testing::ScopedTempDir dir;
  ASSERT_OK_AND_ASSIGN(auto store,
                       grid::GridStore::Open(dir.Sub("store"), {.create_if_missing = true}));
  // 2,500 lines: three batches. Dataset "r" is named on the first line, on line 1000 (the last of
  // the first batch), line 1001 (the first of the second) and twice more in the third batch.
  std::string input;
  for (int i = 1; i <= 2500; ++i) {
    if (i == 1) {
      input += R"({"id": "r", "attributes": {"a": 1, "b": "x"}})";
    } else if (i == 1000) {
      input += R"({"id": "r", "attributes": {"a": 2}})";
    } else if (i == 1001) {
      input += R"({"id": "r", "attributes": {"c": true}})";
    } else if (i == 2100) {
      input += R"({"id": "r", "attributes": {"b": null}})";
    } else if (i == 2101) {
      input += R"({"id": "r", "attributes": {"d": 0.5}})";
    } else {
      input += R"({"id": "ds-)" + std::to_string(i % 2000) + R"(", "attributes": {"n": )" +
               std::to_string(i) + "}}";
    }
    input += "\n";
  }
  ASSERT_OK(CheckMetaPutInput(input));
  ASSERT_OK_AND_ASSIGN(MetaPutSummary summary, PutMetas(store.get(), input));
  ASSERT_OK_AND_ASSIGN(auto all, store->ListDataSets());
  EXPECT_EQ(summary.created, static_cast<int64_t>(all.size()));
  EXPECT_EQ(summary.created + summary.updated, 2500);
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta r, store->GetDataSetMeta("r"));
  EXPECT_EQ(r.attributes.size(), 3u);
  EXPECT_EQ(r.attributes.at("a"), grid::AttributeValue::Int64(2));
  EXPECT_EQ(r.attributes.at("c"), grid::AttributeValue::Bool(true));
  EXPECT_EQ(r.attributes.at("d"), grid::AttributeValue::Double(0.5));
  EXPECT_EQ(r.attributes.count("b"), 0u);
  // ds-500 is named on lines 500 (first batch) and 2500 (third): the later value wins.
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta ds500, store->GetDataSetMeta("ds-500"));
  EXPECT_EQ(ds500.attributes.at("n"), grid::AttributeValue::Int64(2500));
}

}  // namespace
}  // namespace gridstore::tools
