// Copyright 2026 The GridStore Authors.
//
// GridStore::QueryDataSets without an index name: the rule that picks the index (a pure function,
// internal/meta_index_choice.h) and the store method that applies it.
#include <string>
#include <vector>

#include "gridstore/catalog/internal/meta_index_choice.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/catalog/query_parser.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using internal_grid::ChooseMetaIndex;
using internal_grid::QueryAndSortFields;

TEST(GridQueryTest, ChooseMetaIndex) {
  const MetaIndexInfo a{"a", {{{"status", IndexFieldType::kString}}}};
  const MetaIndexInfo b{
      "b", {{{"source", IndexFieldType::kString}, {"model", IndexFieldType::kString}}}};
  const MetaIndexInfo c{"c", {{{"create_time", IndexFieldType::kInt64}}}};
  ASSERT_OK_AND_ASSIGN(auto q, ParseQuery("source = 'x' and model = 'y' or status = 'DONE'", 0));
  EXPECT_EQ(ChooseMetaIndex(q, {}, {}), "");
  EXPECT_EQ(ChooseMetaIndex(q, {}, {c}), "c");  // the only index, even if it covers nothing
  EXPECT_EQ(ChooseMetaIndex(q, {}, {a, b, c}), "b");
  EXPECT_EQ(ChooseMetaIndex(q, {{"create_time", SortOrder::kDescending}}, {a, c}), "a");  // tie
  ASSERT_OK_AND_ASSIGN(auto other, ParseQuery("resolution = 1", 0));
  EXPECT_EQ(ChooseMetaIndex(other, {}, {a, b}), "");
  EXPECT_EQ(ChooseMetaIndex(other, {{"create_time", SortOrder::kAscending}}, {a, b, c}), "c");
  // Sorting by id needs no index.
  EXPECT_EQ(ChooseMetaIndex(other, {{"id", SortOrder::kAscending}}, {a, b, c}), "");
}

TEST(GridQueryTest, QueryAndSortFields) {
  ASSERT_OK_AND_ASSIGN(auto q, ParseQuery("not (b = 1 and 0 < a < 2) or b exists or true", 0));
  EXPECT_EQ(QueryAndSortFields(q, {{"c", SortOrder::kAscending},
                                   {"id", SortOrder::kAscending},
                                   {"a", SortOrder::kDescending}}),
            (std::vector<std::string>{"b", "a", "c"}));
}

class GridQueryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, OpenGridStore(storage::NewMemoryKvStore(),
                                               {.create_if_missing = true, .threads = 1}));
    for (int i = 0; i < 6; ++i) {
      DataSetMeta meta =
          testing::MakeMeta("ds-" + std::to_string(i),
                            {testing::MakeVariable("v", DataType::kFloat32, {1, 1, 2, 2})});
      meta.attributes["source"] = AttributeValue::String(i % 2 == 0 ? "ECMWF" : "NMC");
      meta.attributes["t"] = AttributeValue::Int64(100 - i);
      ASSERT_OK(store_->PutDataSetMeta(meta));
    }
  }

  std::vector<std::string> Ids(const QueryResult& r) {
    std::vector<std::string> ids;
    for (const DataSetMeta& m : r.metas) ids.push_back(m.id);
    return ids;
  }

  std::unique_ptr<GridStore> store_;
};

TEST_F(GridQueryStoreTest, ChoosesTheIndexThatCoversTheQuery) {
  const Query q = QueryBuilder::Equal("source", "ECMWF");
  QueryParams params;
  params.sort = {{"t", SortOrder::kAscending}};
  // No index: every meta is checked.
  ASSERT_OK_AND_ASSIGN(QueryResult r, store_->QueryDataSets(q, params));
  EXPECT_EQ(r.index, "");
  EXPECT_TRUE(r.scanned) << r.plan;
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"ds-4", "ds-2", "ds-0"}));

  // The only index, whatever it holds.
  ASSERT_OK(store_->CreateMetaIndex("by_t", {{{"t", IndexFieldType::kInt64}}}));
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets(q, params));
  EXPECT_EQ(r.index, "by_t");
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"ds-4", "ds-2", "ds-0"}));

  // Of two, the one holding the most of the query's and the sort's fields.
  ASSERT_OK(store_->CreateMetaIndex(
      "by_source", {{{"source", IndexFieldType::kString}, {"t", IndexFieldType::kInt64}}}));
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets(q, params));
  EXPECT_EQ(r.index, "by_source");
  EXPECT_FALSE(r.scanned) << r.plan;
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"ds-4", "ds-2", "ds-0"}));
  // A tie goes to the first by name.
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets(QueryBuilder::LessThan("t", int64_t{98})));
  EXPECT_EQ(r.index, "by_source");
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"ds-3", "ds-4", "ds-5"}));
  // A query on fields no index holds uses none.
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets(QueryBuilder::Exists("model")));
  EXPECT_EQ(r.index, "");
  EXPECT_TRUE(Ids(r).empty());

  // Named, as before: QueryResult::index is that name.
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets("by_t", q, params));
  EXPECT_EQ(r.index, "by_t");
}

TEST_F(GridQueryStoreTest, ErrorsAreThoseOfTheChosenIndex) {
  ASSERT_OK(store_->CreateMetaIndex("by_t", {{{"t", IndexFieldType::kInt64}}}));
  // t is declared int64 in the chosen index: a string is the wrong type.
  EXPECT_STATUS(store_->QueryDataSets(QueryBuilder::Equal("t", "x")).status(), kInvalidArgument,
                "indexed as int64");
  QueryParams params;
  params.limit = -2;
  EXPECT_STATUS(store_->QueryDataSets(QueryBuilder::All(), params).status(), kInvalidArgument,
                "limit");
}

}  // namespace
}  // namespace gridstore::grid
