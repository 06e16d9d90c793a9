// Copyright 2026 The GridStore Authors.
//
// Finds datasets by their attributes, as in the reference's query example: 90 datasets with tags
// and statuses spread over three days, an index on those attributes, then
//
//   status = 'DONE' and create_time > now - 1 day and (tag1 = 'A' or tag2 = 'X')
//
// (parsed from that text, and built with QueryBuilder: the two are equal), newest first, 10 per
// page, following the page token to the end, on the index the store chooses. Unlike the reference's
// search index, the results are consistent at once: no sleep between writing and querying. The
// sample checks its answer against a brute-force filter of every dataset and exits non-zero if they
// differ.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/catalog/query_parser.h"
#include "gridstore/grid/grid_store.h"
#include "sample_common.h"

namespace {

using namespace gridstore::grid;

constexpr int kDataSets = 90;
constexpr int64_t kDayMs = 86'400'000;

int64_t IntAttribute(const DataSetMeta& meta, const char* name) {
  auto it = meta.attributes.find(name);
  return it != meta.attributes.end() && it->second.is_number() ? it->second.integers().at(0) : -1;
}

std::string StringAttribute(const DataSetMeta& meta, const char* name) {
  auto it = meta.attributes.find(name);
  return it != meta.attributes.end() && it->second.is_string() ? it->second.string_value() : "";
}

}  // namespace

int main(int argc, char** argv) {
  using samples::Check;
  using samples::CheckResult;
  const std::string path = argc > 1 ? argv[1] : "query-sample-store";
  auto store = CheckResult(GridStore::Open(path, {.create_if_missing = true}), "opening the store");

  // The index first: later writes keep it up to date in the same atomic batch as the meta.
  MetaIndexSchema schema{{{"status", IndexFieldType::kString},
                          {"create_time", IndexFieldType::kInt64},
                          {"tag1", IndexFieldType::kString},
                          {"tag2", IndexFieldType::kString}}};
  Check(store->CreateMetaIndex("sample_index", schema), "CreateMetaIndex");

  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  uint32_t random = 12345;  // a fixed LCG: the same datasets every run
  auto next = [&random](uint32_t n) {
    random = random * 1103515245u + 12345u;
    return (random >> 16) % n;
  };
  for (int i = 0; i < kDataSets; ++i) {
    DataSetMeta meta;
    char id[64];
    std::snprintf(id, sizeof(id), "query-sample/run-%02d", i);
    meta.id = id;
    // What the run will hold; the data itself is not needed to search.
    VariableMeta var;
    var.name = "temperature";
    var.shape = {24, 1, 181, 360};
    meta.variables.push_back(var);
    meta.attributes["tag1"] = AttributeValue::String(std::string(1, "ABC"[next(3)]));
    meta.attributes["tag2"] = AttributeValue::String(std::string(1, "XYZ"[next(3)]));
    meta.set_status(next(5) == 0 ? kStatusInit : kStatusDone);
    // Spread over the last three days, one dataset every 48 minutes.
    meta.attributes["create_time"] = AttributeValue::Int64(now - i * (3 * kDayMs / kDataSets) - 1);
    Check(store->PutDataSetMeta(meta), "PutDataSetMeta");
  }

  // The same query as text, in the language of `gridstore query --where`, and as built in code.
  Query query = CheckResult(
      ParseQuery("status = 'DONE' and create_time > now - 1 day and (tag1 = 'A' or tag2 = 'X')",
                 now),
      "ParseQuery");
  const Query built = QueryBuilder::And({
      QueryBuilder::Equal("status", std::string(kStatusDone)),
      QueryBuilder::GreaterThan("create_time", now - kDayMs),
      QueryBuilder::Or({QueryBuilder::Equal("tag1", "A"), QueryBuilder::Equal("tag2", "X")}),
  });
  if (!(query == built)) {
    std::fprintf(stderr, "MISMATCH: the parsed query is %s, the built one %s\n",
                 query.ToString().c_str(), built.ToString().c_str());
    return 1;
  }
  QueryParams params;
  params.sort = {{"create_time", SortOrder::kDescending}};
  params.limit = 10;
  params.get_total_count = true;
  std::printf("query: %s, newest first, %ld per page\n", query.ToString().c_str(),
              static_cast<long>(params.limit));

  std::vector<std::string> found;
  int64_t total = -1;
  for (int page = 1;; ++page) {
    // No index named: the store uses the one that covers the query's fields.
    QueryResult result = CheckResult(store->QueryDataSets(query, params), "QueryDataSets");
    if (page == 1) {
      total = result.total;
      std::printf("index: %s\nplan: %s\n%ld dataset(s) match\n", result.index.c_str(),
                  result.plan.c_str(), static_cast<long>(total));
    }
    std::printf("page %d:\n", page);
    for (const DataSetMeta& meta : result.metas) {
      std::printf("  %s  create_time=%ld  tag1=%s  tag2=%s  status=%s\n", meta.id.c_str(),
                  static_cast<long>(IntAttribute(meta, "create_time")),
                  StringAttribute(meta, "tag1").c_str(), StringAttribute(meta, "tag2").c_str(),
                  meta.status().c_str());
      found.push_back(meta.id);
    }
    if (result.next_token.empty()) break;
    params.page_token = result.next_token;
  }

  // The same question answered the slow way: every dataset, filtered and sorted here.
  std::vector<DataSetMeta> all = CheckResult(store->ListDataSets(), "ListDataSets");
  std::vector<DataSetMeta> expected;
  for (const DataSetMeta& meta : all) {
    if (meta.status() == kStatusDone && IntAttribute(meta, "create_time") > now - kDayMs &&
        (StringAttribute(meta, "tag1") == "A" || StringAttribute(meta, "tag2") == "X")) {
      expected.push_back(meta);
    }
  }
  std::sort(expected.begin(), expected.end(), [](const DataSetMeta& a, const DataSetMeta& b) {
    const int64_t ta = IntAttribute(a, "create_time"), tb = IntAttribute(b, "create_time");
    return ta != tb ? ta > tb : a.id < b.id;
  });
  std::vector<std::string> expected_ids;
  for (const DataSetMeta& meta : expected) expected_ids.push_back(meta.id);
  if (found != expected_ids || total != static_cast<int64_t>(expected_ids.size())) {
    std::fprintf(stderr,
                 "MISMATCH: the query returned %zu dataset(s) (total %ld), brute force %zu\n",
                 found.size(), static_cast<long>(total), expected_ids.size());
    return 1;
  }
  std::printf("checked against a brute-force filter of %zu dataset(s): %zu match, same order\n",
              all.size(), found.size());
  return 0;
}
