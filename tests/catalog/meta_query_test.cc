// Copyright 2026 The GridStore Authors.
//
// Meta queries against a brute-force evaluator that implements docs/meta-queries.md on its own
// (numbers compared as long double, which holds every int64 and double exactly on x86-64), plus a
// checker that the index table holds exactly the postings the metas imply.
#include "gridstore/catalog/meta_query.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "gridstore/catalog/internal/meta_covering.h"
#include "gridstore/catalog/internal/meta_index.h"
#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using testing::ScopedTempDir;
using QB = QueryBuilder;

static_assert(std::numeric_limits<long double>::digits >= 64, "exact int64/double comparisons");

DataSetMeta MakeDataSet(const std::string& id, Attributes attributes) {
  DataSetMeta meta =
      testing::MakeMeta(id, {testing::MakeVariable("v", DataType::kFloat32, {1, 1, 2, 2})});
  meta.attributes = std::move(attributes);
  return meta;
}

MetaIndexSchema TestSchema() {
  return MetaIndexSchema{{{"s", IndexFieldType::kString},
                          {"i", IndexFieldType::kInt64},
                          {"d", IndexFieldType::kDouble},
                          {"b", IndexFieldType::kBool},
                          {"t", IndexFieldType::kInt64}}};
}

// ---- The reference semantics ----

// A visible value: number (long double, NaN allowed), string or bool.
struct Ref {
  enum Kind { kNumber, kString, kBool } kind;
  long double n = 0;
  std::string s;
  bool b = false;
};

const IndexField* Declared(const MetaIndexSchema* schema, std::string_view field) {
  if (schema == nullptr) return nullptr;
  for (const IndexField& f : schema->fields)
    if (f.name == field) return &f;
  return nullptr;
}

std::optional<Ref> VisibleRef(const Attributes& attrs, std::string_view field,
                              const MetaIndexSchema* schema) {
  auto it = attrs.find(field);
  if (it == attrs.end()) return std::nullopt;
  const AttributeValue& v = it->second;
  const IndexField* f = Declared(schema, field);
  const bool is_int = v.is_number() && !IsFloatingPoint(v.number_type());
  if (v.is_string()) {
    if (f != nullptr && f->type != IndexFieldType::kString) return std::nullopt;
    return Ref{Ref::kString, 0, v.string_value()};
  }
  if (v.is_bool()) {
    if (f != nullptr && f->type != IndexFieldType::kBool) return std::nullopt;
    return Ref{Ref::kBool, 0, "", v.bool_value()};
  }
  if (v.size() != 1) return std::nullopt;
  if (f != nullptr) {
    if (f->type == IndexFieldType::kInt64 && is_int) {
      return Ref{Ref::kNumber, static_cast<long double>(v.integers()[0])};
    }
    if (f->type == IndexFieldType::kDouble) return Ref{Ref::kNumber, v.AsDouble(0)};
    return std::nullopt;
  }
  if (is_int) return Ref{Ref::kNumber, static_cast<long double>(v.integers()[0])};
  return Ref{Ref::kNumber, v.floats()[0]};
}

Ref QueryRef(const QueryValue& q, const IndexField* f) {
  if (auto* s = std::get_if<std::string>(&q)) return Ref{Ref::kString, 0, *s};
  if (auto* b = std::get_if<bool>(&q)) return Ref{Ref::kBool, 0, "", *b};
  if (auto* i = std::get_if<int64_t>(&q)) {
    if (f != nullptr && f->type == IndexFieldType::kDouble) {
      return Ref{Ref::kNumber, static_cast<double>(*i)};
    }
    return Ref{Ref::kNumber, static_cast<long double>(*i)};
  }
  return Ref{Ref::kNumber, std::get<double>(q)};
}

// -1, 0, 1; 2 if unordered.
int RefCompare(const Ref& a, const Ref& b) {
  if (a.kind != b.kind) return 2;
  switch (a.kind) {
    case Ref::kNumber:
      if (std::isnan(a.n) || std::isnan(b.n)) return 2;
      return a.n < b.n ? -1 : (a.n > b.n ? 1 : 0);
    case Ref::kString:
      return a.s < b.s ? -1 : (a.s > b.s ? 1 : 0);
    case Ref::kBool:
      return a.b == b.b ? 0 : (a.b ? 1 : -1);
  }
  return 2;
}

bool RefMatch(const Query& q, const Attributes& attrs, const MetaIndexSchema* schema) {
  const Query::Node& n = q.node();
  switch (n.op) {
    case Query::Op::kAll:
      return true;
    case Query::Op::kAnd:
      return std::all_of(n.children.begin(), n.children.end(),
                         [&](const Query& c) { return RefMatch(c, attrs, schema); });
    case Query::Op::kOr:
      return std::any_of(n.children.begin(), n.children.end(),
                         [&](const Query& c) { return RefMatch(c, attrs, schema); });
    case Query::Op::kNot:
      return !RefMatch(n.children[0], attrs, schema);
    default:
      break;
  }
  auto v = VisibleRef(attrs, n.field, schema);
  if (!v) return false;
  const IndexField* f = Declared(schema, n.field);
  auto cmp = [&](size_t i) { return RefCompare(*v, QueryRef(n.values[i], f)); };
  switch (n.op) {
    case Query::Op::kExists:
      return true;
    case Query::Op::kEqual:
      return cmp(0) == 0;
    case Query::Op::kNotEqual:
      return cmp(0) != 0;
    case Query::Op::kIn:
      for (size_t i = 0; i < n.values.size(); ++i)
        if (cmp(i) == 0) return true;
      return false;
    case Query::Op::kGreater:
      return cmp(0) == 1;
    case Query::Op::kGreaterEqual:
      return cmp(0) == 1 || cmp(0) == 0;
    case Query::Op::kLess:
      return cmp(0) == -1;
    case Query::Op::kLessEqual:
      return cmp(0) == -1 || cmp(0) == 0;
    case Query::Op::kRange: {
      int lo = cmp(0), hi = cmp(1);
      return (lo == 1 || (n.include_lower && lo == 0)) &&
             (hi == -1 || (n.include_upper && hi == 0));
    }
    case Query::Op::kPrefix:
      return v->kind == Ref::kString && v->s.compare(0, std::get<std::string>(n.values[0]).size(),
                                                     std::get<std::string>(n.values[0])) == 0;
    default:
      return false;
  }
}

// Sort rank: numbers, NaN, strings, bools; missing handled by the caller.
int SortCompare(const Ref& a, const Ref& b) {
  auto rank = [](const Ref& r) {
    if (r.kind == Ref::kNumber) return std::isnan(r.n) ? 1 : 0;
    return r.kind == Ref::kString ? 2 : 3;
  };
  if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
  if (rank(a) == 1) return 0;
  return RefCompare(a, b);
}

std::vector<std::string> RefQuery(const std::map<std::string, Attributes>& metas, const Query& q,
                                  const std::vector<SortField>& sort,
                                  const MetaIndexSchema* schema) {
  std::vector<std::string> ids;
  for (const auto& [id, attrs] : metas)
    if (RefMatch(q, attrs, schema)) ids.push_back(id);
  std::stable_sort(ids.begin(), ids.end(), [&](const std::string& x, const std::string& y) {
    for (const SortField& s : sort) {
      int c;
      if (s.field == "id") {
        c = x < y ? -1 : (x > y ? 1 : 0);
      } else {
        auto a = VisibleRef(metas.at(x), s.field, schema);
        auto b = VisibleRef(metas.at(y), s.field, schema);
        if (!a || !b) {
          if (a.has_value() != b.has_value()) return a.has_value();
          continue;
        }
        c = SortCompare(*a, *b);
      }
      if (s.order == SortOrder::kDescending) c = -c;
      if (c != 0) return c < 0;
    }
    return x < y;
  });
  return ids;
}

// ---- The index checker ----

// Every posting the metas imply under the stored definitions, built with the key helpers.
std::set<std::string> ExpectedPostings(const std::vector<MetaIndexInfo>& indexes,
                                       const std::map<std::string, Attributes>& metas) {
  std::set<std::string> keys;
  for (const MetaIndexInfo& index : indexes) {
    for (const auto& [id, attrs] : metas) {
      for (const IndexField& f : index.schema.fields) {
        auto v = VisibleRef(attrs, f.name, &index.schema);
        if (!v) continue;
        std::string key = IndexFieldPrefix(index.name, f.name);
        const AttributeValue& a = attrs.at(f.name);
        switch (f.type) {
          case IndexFieldType::kString:
            AppendIndexString(v->s, &key);
            break;
          case IndexFieldType::kBool:
            AppendIndexBool(v->b, &key);
            break;
          case IndexFieldType::kInt64:
            AppendIndexInt64(a.integers()[0], &key);
            break;
          case IndexFieldType::kDouble:
            AppendIndexDouble(a.AsDouble(0), &key);
            break;
        }
        AppendIndexPostingId(id, &key);
        keys.insert(key);
      }
    }
  }
  return keys;
}

void ExpectIndexConsistent(GridStore* store, const std::map<std::string, Attributes>& metas) {
  ASSERT_OK_AND_ASSIGN(auto indexes, store->ListMetaIndexes());
  std::set<std::string> want = ExpectedPostings(indexes, metas);
  std::set<std::string> have;
  ASSERT_OK(KvStoreOf(store)->Scan(storage::ReadOptions{}, storage::Table::kIndex,
                                   storage::KeyRange::Prefix("\x01"),
                                   [&](std::string_view key, std::string_view) {
                                     have.emplace(key);
                                     return true;
                                   }));
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                      std::back_inserter(missing));
  std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " postings missing, first "
                               << EscapeForMessage(missing.empty() ? "" : missing[0]);
  EXPECT_TRUE(extra.empty()) << extra.size() << " stale postings, first "
                             << EscapeForMessage(extra.empty() ? "" : extra[0]);
  // Nothing else in the index table but definitions.
  size_t others = 0;
  ASSERT_OK(KvStoreOf(store)->Scan(storage::ReadOptions{}, storage::Table::kIndex,
                                   storage::KeyRange{"\x02", "\x03"},
                                   [&](std::string_view, std::string_view) {
                                     ++others;
                                     return true;
                                   }));
  EXPECT_EQ(others, 0u);
}

// Every posting's value holds the covered values (meta_covering.h) of its dataset as the
// reference metas say now: decoded, each field's value is the reference's visible value. With
// `allow_legacy`, postings with an empty value (written before store format 3) are allowed.
void ExpectCoveredValuesCurrent(GridStore* store, const std::map<std::string, Attributes>& metas,
                                bool allow_legacy = false) {
  ASSERT_OK_AND_ASSIGN(auto indexes, store->ListMetaIndexes());
  std::map<std::string, std::pair<const MetaIndexInfo*, const std::string*>> owner;
  for (const MetaIndexInfo& index : indexes) {
    for (const auto& [id, attrs] : metas) {
      std::vector<std::string> keys;
      internal_grid::AppendMetaPostings(index, id, attrs, &keys);
      for (std::string& k : keys) owner[std::move(k)] = {&index, &id};
    }
  }
  size_t checked = 0, legacy = 0;
  std::vector<std::string> wrong;
  std::vector<internal_grid::Scalar> row;
  ASSERT_OK(KvStoreOf(store)->Scan(
      storage::ReadOptions{}, storage::Table::kIndex, storage::KeyRange::Prefix("\x01"),
      [&](std::string_view key, std::string_view value) {
        auto it = owner.find(std::string(key));
        if (it == owner.end()) return true;  // ExpectIndexConsistent reports stale postings
        const MetaIndexInfo& index = *it->second.first;
        const Attributes& attrs = metas.at(*it->second.second);
        if (value.empty() && allow_legacy) {
          ++legacy;
          return true;
        }
        ++checked;
        if (!internal_grid::DecodeCoveredValues(value, index.schema.fields.size(), &row)) {
          wrong.push_back(EscapeForMessage(key) + ": undecodable value");
          return true;
        }
        for (size_t f = 0; f < row.size(); ++f) {
          const std::string& name = index.schema.fields[f].name;
          const auto ref = VisibleRef(attrs, name, &index.schema);
          const internal_grid::Scalar& v = row[f];
          bool same = false;
          if (!ref) {
            same = v.kind == internal_grid::Scalar::kNone;
          } else if (ref->kind == Ref::kString) {
            same = v.kind == internal_grid::Scalar::kString && v.s == ref->s;
          } else if (ref->kind == Ref::kBool) {
            same = v.kind == internal_grid::Scalar::kBool && v.b == ref->b;
          } else if (v.kind == internal_grid::Scalar::kInt) {
            same = static_cast<long double>(v.i) == ref->n;
          } else if (v.kind == internal_grid::Scalar::kDouble) {
            same = std::isnan(ref->n) ? std::isnan(v.d) : static_cast<long double>(v.d) == ref->n;
          }
          if (!same) wrong.push_back(EscapeForMessage(key) + ": field " + name);
        }
        return true;
      }));
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " postings with stale covered values, first "
                             << wrong[0];
  if (!allow_legacy) {
    EXPECT_EQ(legacy, 0u);
  }
  EXPECT_EQ(checked + legacy, owner.size());
}

// ---- Random data and queries ----

const std::vector<std::string>& Strings() {
  static const std::vector<std::string> v = {
      "", "a", "ab", "abc", "b", "ba", std::string("a\0b", 3), "\xff", "ECMWF", "NMC", "\xc3\xa9"};
  return v;
}

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  int Int(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Int(100) < percent; }

  std::string Str() { return Strings()[Int(static_cast<int>(Strings().size()))]; }
  int64_t I64() {
    static const int64_t extremes[] = {std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(), 1700000000000,
                                       -1700000000000, (int64_t{1} << 53) + 1};
    if (Chance(10)) return extremes[Int(5)];
    return Int(11) - 5;
  }
  double F64() {
    static const double values[] = {-1.5,
                                    -0.0,
                                    0.0,
                                    0.5,
                                    1.0,
                                    2.5,
                                    std::nan(""),
                                    INFINITY,
                                    -INFINITY,
                                    3.0,
                                    1e300,
                                    -2.0,
                                    9223372036854775808.0};
    return values[Int(13)];
  }

  AttributeValue AnyValue() {
    switch (Int(6)) {
      case 0:
        return AttributeValue::String(Str());
      case 1:
        return AttributeValue::Bool(Chance(50));
      case 2:
        return AttributeValue::Int64(I64());
      case 3:
        return AttributeValue::Integers(DataType::kInt32, {Int(7) - 3});
      case 4:
        return AttributeValue::Double(F64());
      default:
        return AttributeValue::Floats(DataType::kFloat64, {F64(), F64()});  // an array
    }
  }

  AttributeValue DeclaredValue(const std::string& field) {
    if (field == "s" || field == "v") return AttributeValue::String(Str());
    if (field == "b") return AttributeValue::Bool(Chance(50));
    if (field == "i") return AttributeValue::Int64(I64());
    if (field == "t") return AttributeValue::Int64(1700000000000 + Int(500));
    return Chance(30) ? AttributeValue::Int64(I64()) : AttributeValue::Double(F64());
  }

  Attributes RandomAttributes() {
    Attributes a;
    for (const char* f : {"s", "i", "d", "b", "t", "u", "v"}) {
      const int r = Int(100);
      if (r < 15) continue;  // missing
      a[f] = (r < 30 || std::string(f) == "u") ? AnyValue() : DeclaredValue(f);
    }
    return a;
  }

  QueryValue QValue(const std::string& field, const MetaIndexSchema* schema) {
    const IndexField* f = Declared(schema, field);
    int kind = Int(4);  // 0 string, 1 int64, 2 double, 3 bool
    if (f != nullptr) {
      switch (f->type) {
        case IndexFieldType::kString:
          kind = 0;
          break;
        case IndexFieldType::kBool:
          kind = 3;
          break;
        default:
          kind = 1 + Int(2);
      }
    }
    switch (kind) {
      case 0:
        return Str();
      case 1:
        return field == "t" && Chance(70) ? int64_t{1700000000000 + Int(500)} : I64();
      case 2:
        return F64();
      default:
        return Chance(50);
    }
  }

  Query RandomQuery(int depth, const MetaIndexSchema* schema) {
    static const char* fields[] = {"s", "i", "d", "b", "t", "u", "v", "nope"};
    if (depth > 0 && Chance(45)) {
      std::vector<Query> children;
      const int n = 1 + Int(3);
      for (int i = 0; i < n; ++i) children.push_back(RandomQuery(depth - 1, schema));
      switch (Int(3)) {
        case 0:
          return QB::And(std::move(children));
        case 1:
          return QB::Or(std::move(children));
        default:
          return QB::Not(std::move(children[0]));
      }
    }
    const std::string field = fields[Int(8)];
    const IndexField* f = Declared(schema, field);
    const bool can_prefix = f == nullptr || f->type == IndexFieldType::kString;
    switch (Int(can_prefix ? 10 : 9)) {
      case 0:
        return QB::Equal(field, QValue(field, schema));
      case 1:
        return QB::NotEqual(field, QValue(field, schema));
      case 2: {
        std::vector<QueryValue> values;
        const int n = Int(4);
        for (int i = 0; i < n; ++i) values.push_back(QValue(field, schema));
        return QB::In(field, std::move(values));
      }
      case 3:
        return QB::GreaterThan(field, QValue(field, schema));
      case 4:
        return QB::GreaterEqual(field, QValue(field, schema));
      case 5:
        return QB::LessThan(field, QValue(field, schema));
      case 6:
        return QB::LessEqual(field, QValue(field, schema));
      case 7: {
        QueryValue lo = QValue(field, schema), hi = QValue(field, schema);
        auto cls = [](const QueryValue& v) { return v.index() == 2 ? 1 : v.index(); };
        while (cls(hi) != cls(lo)) hi = QValue(field, schema);
        return QB::Range(field, lo, hi, Chance(50), Chance(50));
      }
      case 8:
        return QB::Exists(field);
      default: {
        std::string p = Str();
        return QB::Prefix(field, p.substr(0, Int(static_cast<int>(p.size()) + 1)));
      }
    }
  }

  // Range conditions on a field the result is then sorted by, as in "a day's runs, newest
  // first": exercises merged ranges and walks bounded by them.
  Query RangeAndSortQuery(const std::string& field, const MetaIndexSchema* schema) {
    std::vector<Query> children;
    const int ranges = 1 + Int(2);
    for (int i = 0; i < ranges; ++i) {
      switch (Int(5)) {
        case 0:
          children.push_back(QB::GreaterThan(field, QValue(field, schema)));
          break;
        case 1:
          children.push_back(QB::GreaterEqual(field, QValue(field, schema)));
          break;
        case 2:
          children.push_back(QB::LessThan(field, QValue(field, schema)));
          break;
        case 3:
          children.push_back(QB::LessEqual(field, QValue(field, schema)));
          break;
        default:
          children.push_back(QB::Equal(field, QValue(field, schema)));
      }
    }
    if (Chance(60)) children.push_back(RandomQuery(1, schema));
    std::shuffle(children.begin(), children.end(), rng_);
    return QB::And(std::move(children));
  }

  std::vector<SortField> RandomSort() {
    static const char* fields[] = {"t", "s", "d", "i", "b", "u", "id", "nope"};
    std::vector<SortField> sort;
    const int n = Int(3);
    for (int i = 0; i < n; ++i) {
      sort.push_back(
          SortField{fields[Int(8)], Chance(50) ? SortOrder::kAscending : SortOrder::kDescending});
    }
    return sort;
  }

 private:
  std::mt19937_64 rng_;
};

std::vector<std::string> Ids(const QueryResult& r) {
  std::vector<std::string> ids;
  for (const DataSetMeta& m : r.metas) ids.push_back(m.id);
  return ids;
}

// Runs random queries against the reference; pages through every result with tokens.
// With `range_and_sort`, the queries are Gen::RangeAndSortQuery on t or b, sorted by that field.
void CheckRandomQueries(GridStore* store, const std::map<std::string, Attributes>& metas,
                        const std::string& index, const MetaIndexSchema* schema, Gen& gen,
                        int queries, bool range_and_sort = false) {
  for (int k = 0; k < queries; ++k) {
    const std::string walked = gen.Chance(70) ? "t" : "b";
    Query q = range_and_sort ? gen.RangeAndSortQuery(walked, schema) : gen.RandomQuery(3, schema);
    QueryParams params;
    params.sort = gen.RandomSort();
    if (range_and_sort) {
      params.sort.insert(
          params.sort.begin(),
          SortField{walked, gen.Chance(50) ? SortOrder::kAscending : SortOrder::kDescending});
    }
    static const int64_t limits[] = {-1, 0, 1, 5, 17, 100};
    params.limit = limits[gen.Int(6)];
    params.offset = gen.Chance(30) ? gen.Int(40) : 0;
    params.get_total_count = gen.Chance(50);
    // The page as ids alone, on every path (walks, candidate sets, scans): never a meta read.
    params.ids_only = gen.Chance(40);
    SCOPED_TRACE("query " + std::to_string(k) + ": " + q.ToString() + " limit " +
                 std::to_string(params.limit) + " offset " + std::to_string(params.offset) +
                 (params.ids_only ? " ids only" : ""));
    const std::vector<std::string> want = RefQuery(metas, q, params.sort, schema);
    ASSERT_OK_AND_ASSIGN(QueryResult r, store->QueryDataSets(index, q, params));
    const size_t begin = std::min(want.size(), static_cast<size_t>(params.offset));
    const size_t end = params.limit < 0 ? want.size() : std::min(want.size(), begin + params.limit);
    const std::vector<std::string> want_page(want.begin() + begin, want.begin() + end);
    ASSERT_EQ(r.ids, want_page) << r.plan;
    if (params.ids_only) {
      EXPECT_TRUE(r.metas.empty());
    } else {
      ASSERT_EQ(Ids(r), want_page) << r.plan;
    }
    EXPECT_EQ(r.total, params.get_total_count ? static_cast<int64_t>(want.size()) : -1);
    EXPECT_EQ(r.next_token.empty(), params.limit <= 0 || end == want.size()) << r.plan;

    // Every page, through tokens.
    if (k % 4 == 0) {
      QueryParams page;
      page.sort = params.sort;
      page.limit = 10 + gen.Int(90);
      page.ids_only = params.ids_only;
      std::vector<std::string> all;
      for (int guard = 0; guard < 10000; ++guard) {
        ASSERT_OK_AND_ASSIGN(QueryResult p, store->QueryDataSets(index, q, page));
        for (auto& id : p.ids) all.push_back(id);
        if (p.next_token.empty()) break;
        page.page_token = p.next_token;
      }
      ASSERT_EQ(all, want);
    }
  }
}

class MetaQueryTest : public ::testing::Test {
 protected:
  void OpenRocksDb() {
    auto opened = GridStore::Open(dir_.Sub("store"), {.create_if_missing = true, .threads = 1});
    ASSERT_OK(opened);
    store_ = std::move(opened).value();
  }
  void OpenMemory() {
    auto opened =
        OpenGridStore(storage::NewMemoryKvStore(), {.create_if_missing = true, .threads = 1});
    ASSERT_OK(opened);
    store_ = std::move(opened).value();
  }
  void Put(const std::string& id, Attributes attrs) {
    ASSERT_OK(store_->PutDataSetMeta(MakeDataSet(id, attrs)));
    metas_[id] = std::move(attrs);
  }
  void Populate(Gen& gen, int n) {
    for (int i = 0; i < n; ++i) {
      char id[32];
      std::snprintf(id, sizeof(id), "ds-%05d", (i * 7919) % 100000);
      Put(id, gen.RandomAttributes());
    }
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  std::map<std::string, Attributes> metas_;
};

TEST_F(MetaQueryTest, RandomQueriesMatchBruteForceInMemory) {
  OpenMemory();
  Gen gen(42);
  // Half the datasets before the index (backfill), half after (maintenance).
  Populate(gen, 1200);
  const MetaIndexSchema schema = TestSchema();
  ASSERT_OK(store_->CreateMetaIndex("main", schema));
  for (int i = 0; i < 1200; ++i) Put("late-" + std::to_string(i), gen.RandomAttributes());
  ExpectIndexConsistent(store_.get(), metas_);
  CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 110);
  CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 150, /*range_and_sort=*/true);
  CheckRandomQueries(store_.get(), metas_, "", nullptr, gen, 30);
}

TEST_F(MetaQueryTest, RandomQueriesMatchBruteForceOnRocksDb) {
  OpenRocksDb();
  Gen gen(7);
  const MetaIndexSchema schema = TestSchema();
  ASSERT_OK(store_->CreateMetaIndex("main", schema));
  Populate(gen, 1200);
  ExpectIndexConsistent(store_.get(), metas_);
  CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 120);
  CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 150, /*range_and_sort=*/true);
}

TEST_F(MetaQueryTest, IndexFollowsUpdatesDeletesOverwritesAndRecreation) {
  OpenRocksDb();
  Gen gen(99);
  const MetaIndexSchema schema = TestSchema();
  Populate(gen, 150);
  ASSERT_OK(store_->CreateMetaIndex("main", schema));  // on a populated store
  ExpectIndexConsistent(store_.get(), metas_);
  for (int step = 0; step < 400; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const std::string id = "ds-" + std::to_string(gen.Int(200));
    const int op = gen.Int(100);
    if (op < 20) {
      Put(id, gen.RandomAttributes());  // create or overwrite
    } else if (op < 35) {
      // Bulk create or overwrite, ids possibly repeated within the batch (the last one wins).
      std::vector<DataSetMeta> batch;
      const int n = 1 + gen.Int(20);
      for (int i = 0; i < n; ++i) {
        batch.push_back(MakeDataSet("ds-" + std::to_string(gen.Int(200)), gen.RandomAttributes()));
      }
      ASSERT_OK(store_->PutDataSetMetas(batch));
      for (const DataSetMeta& m : batch) metas_[m.id] = m.attributes;
    } else if (op < 60 && metas_.count(id)) {
      // Change or remove one attribute through UpdateDataSetMeta.
      ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta(id));
      static const char* fields[] = {"s", "i", "d", "b", "t", "u"};
      const std::string f = fields[gen.Int(6)];
      if (gen.Chance(40)) {
        meta.attributes.erase(f);
      } else {
        meta.attributes[f] = gen.Chance(70) ? gen.DeclaredValue(f) : gen.AnyValue();
      }
      ASSERT_OK(store_->UpdateDataSetMeta(meta));
      metas_[id] = meta.attributes;
    } else if (op < 80) {
      Status s = store_->DeleteDataSet(id);
      EXPECT_EQ(s.ok(), metas_.erase(id) == 1) << s;
    } else if (op < 84) {
      ASSERT_OK(store_->DropMetaIndex("main"));
      ExpectIndexConsistent(store_.get(), metas_);
      ASSERT_OK(store_->CreateMetaIndex("main", schema));
    } else if (op < 88) {
      // A second index, created and dropped on a populated store.
      MetaIndexSchema other{{{"s", IndexFieldType::kString}, {"u", IndexFieldType::kDouble}}};
      auto listed = store_->ListMetaIndexes();
      ASSERT_OK(listed);
      if (listed->size() == 1) {
        ASSERT_OK(store_->CreateMetaIndex("other", other));
      } else {
        ASSERT_OK(store_->DropMetaIndex("other"));
      }
    } else {
      CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 3);
    }
    ExpectIndexConsistent(store_.get(), metas_);
    ExpectCoveredValuesCurrent(store_.get(), metas_);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
  // After reopening, maintenance still knows every index.
  store_.reset();
  OpenRocksDb();
  Put("after-reopen", gen.RandomAttributes());
  ASSERT_OK(store_->DeleteDataSet(metas_.begin()->first));
  metas_.erase(metas_.begin());
  ExpectIndexConsistent(store_.get(), metas_);
  ExpectCoveredValuesCurrent(store_.get(), metas_);
}

// Issue 18 part 4: a change of one indexed attribute rewrites the covered values of every
// posting of the dataset, so that a scan of another field's postings sees the new value; a
// change of an attribute no index holds writes no posting.
TEST_F(MetaQueryTest, CoveredValuesFollowAttributeChanges) {
  OpenRocksDb();
  ASSERT_OK(store_->CreateMetaIndex("main", TestSchema()));
  Put("a", {{"s", AttributeValue::String("x")}, {"t", AttributeValue::Int64(1)}});
  Put("b", {{"s", AttributeValue::String("x")}, {"t", AttributeValue::Int64(2)}});
  const Query q = QB::And({QB::Equal("s", "x"), QB::Equal("t", int64_t{3})});
  QueryParams params;
  params.sort = {{"t", SortOrder::kDescending}};
  ASSERT_OK_AND_ASSIGN(QueryResult r, store_->QueryDataSets("main", q, params));
  EXPECT_TRUE(r.metas.empty());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("a"));
  meta.attributes["t"] = AttributeValue::Int64(3);
  ASSERT_OK(store_->UpdateDataSetMeta(meta));
  metas_["a"] = meta.attributes;
  ExpectCoveredValuesCurrent(store_.get(), metas_);
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets("main", q, params));
  EXPECT_EQ(Ids(r), std::vector<std::string>{"a"}) << r.plan;
  // An attribute of no index: the postings stay as they are (no write), and still current.
  meta.attributes["u"] = AttributeValue::String("new");
  ASSERT_OK(store_->UpdateDataSetMeta(meta));
  metas_["a"] = meta.attributes;
  ExpectCoveredValuesCurrent(store_.get(), metas_);
  // Removing an indexed attribute: its posting goes, the others say it is absent.
  meta.attributes.erase("t");
  ASSERT_OK(store_->UpdateDataSetMeta(meta));
  metas_["a"] = meta.attributes;
  ExpectIndexConsistent(store_.get(), metas_);
  ExpectCoveredValuesCurrent(store_.get(), metas_);
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets("main", QB::Equal("s", "x"), QueryParams{}));
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"a", "b"}));
  ASSERT_OK_AND_ASSIGN(r, store_->QueryDataSets("main", q, params));
  EXPECT_TRUE(r.metas.empty());
  ASSERT_OK(store_->DeleteDataSet("b"));
  metas_.erase("b");
  ExpectIndexConsistent(store_.get(), metas_);
  ExpectCoveredValuesCurrent(store_.get(), metas_);
}

// A store written before covered values (every posting's value empty), and one where
// only some postings have them (datasets written since): queries check the others on their metas
// and still match the reference; a write of a changed dataset gives its postings covered values.
TEST_F(MetaQueryTest, PostingsWithoutCoveredValuesStillAnswer) {
  OpenRocksDb();
  Gen gen(1234);
  const MetaIndexSchema schema = TestSchema();
  ASSERT_OK(store_->CreateMetaIndex("main", schema));
  Populate(gen, 900);
  // A store of format 2 (postings without covered values) opens, and opening it for writing
  // marks it format 3, which older builds refuse; a newer format is refused.
  auto marker = [](uint32_t version) {
    std::string v = "GridStore";
    for (int i = 0; i < 4; ++i) v.push_back(static_cast<char>((version >> (8 * i)) & 0xff));
    return v;
  };
  ASSERT_OK(KvStoreOf(store_.get())
                ->Put(storage::WriteOptions{}, storage::Table::kMeta, StoreMarkerKey(), marker(2)));
  store_.reset();
  OpenRocksDb();
  std::string stored;
  ASSERT_OK(KvStoreOf(store_.get())
                ->Get(storage::ReadOptions{}, storage::Table::kMeta, StoreMarkerKey(), &stored));
  EXPECT_EQ(stored, marker(3));
  ASSERT_OK(KvStoreOf(store_.get())
                ->Put(storage::WriteOptions{}, storage::Table::kMeta, StoreMarkerKey(), marker(4)));
  store_.reset();
  EXPECT_STATUS(GridStore::Open(dir_.Sub("store"), {}).status(), kFailedPrecondition,
                "format version 4");
  {
    auto kv = storage::OpenRocksDbKvStore({}, dir_.Sub("store"));
    ASSERT_OK(kv);
    ASSERT_OK(
        (*kv)->Put(storage::WriteOptions{}, storage::Table::kMeta, StoreMarkerKey(), marker(3)));
  }
  OpenRocksDb();
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "every posting without covered values"
                            : "some postings without them");
    // Format 1: postings with an empty value (every one, then every third one).
    storage::WriteBatch legacy;
    size_t n = 0;
    ASSERT_OK(KvStoreOf(store_.get())
                  ->Scan(storage::ReadOptions{}, storage::Table::kIndex,
                         storage::KeyRange::Prefix("\x01"), [&](std::string_view key, auto) {
                           if (round == 0 || n++ % 3 == 0) {
                             legacy.Put(storage::Table::kIndex, key, "");
                           }
                           return true;
                         }));
    ASSERT_OK(KvStoreOf(store_.get())->Write(storage::WriteOptions{}, legacy));
    ExpectCoveredValuesCurrent(store_.get(), metas_, /*allow_legacy=*/true);
    CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 80);
    CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 80, /*range_and_sort=*/true);
    // Rewrites with changed indexed values bring covered values back for those datasets.
    std::vector<std::string> rewritten;
    for (const auto& entry : metas_) {
      if (rewritten.size() < 100 && gen.Chance(15)) rewritten.push_back(entry.first);
    }
    for (const std::string& id : rewritten) Put(id, gen.RandomAttributes());
    ExpectIndexConsistent(store_.get(), metas_);
    ExpectCoveredValuesCurrent(store_.get(), metas_, /*allow_legacy=*/true);
    CheckRandomQueries(store_.get(), metas_, "main", &schema, gen, 40, /*range_and_sort=*/true);
  }
}

// Conjunctions of broad conditions (thousands of postings each): the later children of an `and`
// are read keeping only ids of the first set. Counts and lists match the reference, also after
// deletes and updates, and with the conditions in either order.
TEST_F(MetaQueryTest, BroadConjunctionsMatchTheReferenceAfterChanges) {
  OpenRocksDb();
  const MetaIndexSchema schema = TestSchema();
  ASSERT_OK(store_->CreateMetaIndex("main", schema));
  static const char* sources[] = {"a", "b", "c", "d", "e", "f"};
  std::mt19937_64 rng(5);
  auto attrs = [&]() {
    return Attributes{{"s", AttributeValue::String(sources[rng() % 6])},
                      {"i", AttributeValue::Int64(static_cast<int64_t>(rng() % 4))},
                      {"t", AttributeValue::Int64(static_cast<int64_t>(rng() % 1000))}};
  };
  std::vector<DataSetMeta> batch;
  for (int i = 0; i < 6000; ++i) {
    char id[32];
    std::snprintf(id, sizeof(id), "x%05d", (i * 7919) % 6000);
    batch.push_back(MakeDataSet(id, attrs()));
    metas_[id] = batch.back().attributes;
    if (batch.size() == 1000) {
      ASSERT_OK(store_->PutDataSetMetas(batch));
      batch.clear();
    }
  }
  auto check = [&](int round) {
    for (int k = 0; k < 12; ++k) {
      const std::string s1 = sources[k % 6], s2 = sources[(k * 5 + 1) % 6];
      const int64_t i = k % 4;
      std::vector<Query> children = {QB::In("s", {s1, s2}), QB::Equal("i", i)};
      if (k % 3 == 0)
        children.push_back(QB::Range("t", int64_t{100} * k, int64_t{100} * k + 400, true, false));
      if (k % 2 == 1) std::reverse(children.begin(), children.end());
      const Query q = QB::And(std::move(children));
      SCOPED_TRACE("round " + std::to_string(round) + ": " + q.ToString());
      const std::vector<std::string> want = RefQuery(metas_, q, {}, &schema);
      QueryParams count;
      count.limit = 0;
      count.get_total_count = true;
      ASSERT_OK_AND_ASSIGN(QueryResult c, store_->QueryDataSets("main", q, count));
      EXPECT_EQ(c.total, static_cast<int64_t>(want.size())) << c.plan;
      QueryParams list;
      list.limit = -1;
      ASSERT_OK_AND_ASSIGN(QueryResult all, store_->QueryDataSets("main", q, list));
      EXPECT_EQ(Ids(all), want) << all.plan;
    }
  };
  check(0);
  for (int step = 0; step < 1500; ++step) {
    char id[32];
    std::snprintf(id, sizeof(id), "x%05d", step * 4 % 6000);
    if (step % 3 == 0) {
      ASSERT_OK(store_->DeleteDataSet(id));
      metas_.erase(id);
    } else {
      Put(id, attrs());
    }
  }
  check(1);
  // A walk that checks metas, with an offset past every match (and near overflow): empty page.
  QueryParams far;
  far.sort = {{"t", SortOrder::kDescending}};
  far.limit = 10;
  far.offset = int64_t{1} << 62;
  ASSERT_OK_AND_ASSIGN(QueryResult r,
                       store_->QueryDataSets("main", QB::Not(QB::Equal("s", "a")), far));
  EXPECT_TRUE(r.metas.empty()) << r.plan;
  EXPECT_TRUE(r.next_token.empty());
}

TEST_F(MetaQueryTest, BulkPutIsAllOrNothing) {
  OpenRocksDb();
  ASSERT_OK(store_->CreateMetaIndex("main", TestSchema()));
  ASSERT_OK(store_->PutDataSetMetas({}));
  Put("kept", {{"s", AttributeValue::String("before")}});
  ASSERT_OK_AND_ASSIGN(DataSetMeta kept_before, store_->GetDataSetMeta("kept"));

  // An invalid meta anywhere: nothing is written, and the error says which one.
  std::vector<DataSetMeta> batch = {MakeDataSet("new-1", {{"s", AttributeValue::String("x")}}),
                                    MakeDataSet("kept", {{"s", AttributeValue::String("after")}}),
                                    MakeDataSet("", {})};
  EXPECT_STATUS(store_->PutDataSetMetas(batch), kInvalidArgument, "meta 3 of 3");
  EXPECT_STATUS(store_->GetDataSetMeta("new-1"), kNotFound, "");

  // A refused change (layout of a dataset with data) also refuses the whole batch.
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("kept"));
  Grid2D plane(DataType::kFloat32, 2, 2);
  ASSERT_OK(writer->WriteGrid2D("v", 0, 0, plane));
  writer.reset();
  DataSetMeta relayout = kept_before;
  relayout.layout.block_x = 1;
  batch = {MakeDataSet("new-1", {{"s", AttributeValue::String("x")}}), relayout};
  EXPECT_STATUS(store_->PutDataSetMetas(batch), kFailedPrecondition,
                "meta 2 of 2 (dataset 'kept')");
  EXPECT_STATUS(store_->GetDataSetMeta("new-1"), kNotFound, "");
  ExpectIndexConsistent(store_.get(), metas_);

  // Success: updates keep the incarnation (so the data stays), a repeated id ends as its last.
  batch = {MakeDataSet("new-1", {{"s", AttributeValue::String("first")}}),
           MakeDataSet("kept", {{"s", AttributeValue::String("after")}}),
           MakeDataSet("new-1", {{"t", AttributeValue::Int64(7)}})};
  batch[1].variables = kept_before.variables;
  ASSERT_OK(store_->PutDataSetMetas(batch));
  metas_["new-1"] = batch[2].attributes;
  metas_["kept"] = batch[1].attributes;
  ASSERT_OK_AND_ASSIGN(DataSetMeta kept_after, store_->GetDataSetMeta("kept"));
  EXPECT_EQ(kept_after.incarnation, kept_before.incarnation);
  EXPECT_EQ(kept_after.attributes, batch[1].attributes);
  ASSERT_OK_AND_ASSIGN(DataSetMeta new_1, store_->GetDataSetMeta("new-1"));
  EXPECT_EQ(new_1.attributes, batch[2].attributes);
  ExpectIndexConsistent(store_.get(), metas_);
}

TEST_F(MetaQueryTest, CreateIndexClearsPostingsOfACreationThatCrashed) {
  OpenRocksDb();
  Put("a", {{"s", AttributeValue::String("x")}});
  // A crash between backfill and definition leaves postings without a definition.
  std::string stale = grid::IndexFieldPrefix("main", "s");
  grid::AppendIndexString("stale", &stale);
  grid::AppendIndexPostingId("gone", &stale);
  ASSERT_OK(
      KvStoreOf(store_.get())->Put(storage::WriteOptions{}, storage::Table::kIndex, stale, ""));
  ASSERT_OK(store_->CreateMetaIndex("main", TestSchema()));
  ExpectIndexConsistent(store_.get(), metas_);
}

// Queries run while another thread creates, updates and deletes datasets with the same indexed
// fields: every query succeeds, and the datasets nobody touches are found exactly, in order.
TEST_F(MetaQueryTest, QueriesStayRightWhileWritersChangeOtherDatasets) {
  OpenRocksDb();
  ASSERT_OK(store_->CreateMetaIndex("main", TestSchema()));
  // d = 0.5 marks the stable datasets; churned ones share every other value with them.
  auto attrs = [](const std::string& s, int64_t t, bool b, double d) {
    return Attributes{{"s", AttributeValue::String(s)},
                      {"t", AttributeValue::Int64(t)},
                      {"b", AttributeValue::Bool(b)},
                      {"d", AttributeValue::Double(d)}};
  };
  std::vector<std::string> want_even;  // stable datasets with b = true, newest first
  for (int i = 0; i < 300; ++i) {
    const std::string id = "stable-" + std::to_string(1000 + i);
    Put(id, attrs("stable", 1000 + i, i % 2 == 0, 0.5));
    if (i % 2 == 0) want_even.insert(want_even.begin(), id);
  }
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::mt19937 rng(3);
    for (int step = 0; step < 1500; ++step) {
      const std::string id = "churn-" + std::to_string(rng() % 100);
      // Same fields and overlapping values: postings interleave with the stable ones.
      Status s = rng() % 4 == 0 ? store_->DeleteDataSet(id)
                                : store_->PutDataSetMeta(MakeDataSet(
                                      id, attrs(rng() % 2 ? "stable" : "churn", 1000 + rng() % 300,
                                                rng() % 2, rng() % 2 ? 0.25 : 0.75)));
      if (!s.ok() && !s.IsNotFound()) ADD_FAILURE() << s;
    }
    done = true;
  });
  std::vector<std::thread> readers;
  std::atomic<int> queries{0};
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      while (!done) {
        // Stable datasets only, so the answer is known while others change.
        QueryParams newest;
        newest.sort = {{"t", SortOrder::kDescending}};
        newest.limit = r == 0 ? 20 : -1;
        auto got = store_->QueryDataSets(
            "main",
            QB::And({QB::Equal("s", "stable"), QB::Equal("b", true), QB::Equal("d", 0.5),
                     QB::GreaterEqual("t", int64_t{1000})}),
            newest);
        if (!got.ok()) {
          ADD_FAILURE() << got.status();
          return;
        }
        std::vector<std::string> ids = Ids(*got);
        const size_t n = r == 0 ? 20 : want_even.size();
        if (ids != std::vector<std::string>(want_even.begin(), want_even.begin() + n)) {
          ADD_FAILURE() << "query " << queries.load() << " returned " << ids.size()
                        << " ids; plan: " << got->plan;
          return;
        }
        ++queries;
      }
    });
  }
  writer.join();
  for (std::thread& t : readers) t.join();
  EXPECT_GT(queries.load(), 0);
}

TEST_F(MetaQueryTest, SchemaRulesAndErrors) {
  OpenRocksDb();
  const MetaIndexSchema schema = TestSchema();
  ASSERT_OK(store_->CreateMetaIndex("main", schema));
  ASSERT_OK(store_->CreateMetaIndex("main", schema));  // idempotent
  MetaIndexSchema changed = schema;
  changed.fields[1].type = IndexFieldType::kDouble;
  EXPECT_STATUS(store_->CreateMetaIndex("main", changed), kFailedPrecondition, "'i'", "int64",
                "double");
  MetaIndexSchema more = schema;
  more.fields.push_back({"extra", IndexFieldType::kBool});
  EXPECT_STATUS(store_->CreateMetaIndex("main", more), kFailedPrecondition, "'extra'");
  EXPECT_STATUS(store_->CreateMetaIndex("x", MetaIndexSchema{}), kInvalidArgument);
  EXPECT_STATUS(store_->CreateMetaIndex("x", MetaIndexSchema{{{"a", IndexFieldType::kBool},
                                                              {"a", IndexFieldType::kBool}}}),
                kInvalidArgument, "'a'");
  EXPECT_STATUS(store_->CreateMetaIndex("", schema), kInvalidArgument);
  EXPECT_STATUS(store_->DropMetaIndex("nope"), kNotFound, "'nope'");
  EXPECT_STATUS(store_->QueryDataSets("nope", QB::All()), kNotFound, "'nope'");

  EXPECT_STATUS(store_->QueryDataSets("main", QB::GreaterThan("i", "3")), kInvalidArgument, "'i'",
                "int64", "string");
  EXPECT_STATUS(store_->QueryDataSets("main", QB::Equal("s", int64_t{3})), kInvalidArgument, "'s'",
                "string", "int64");
  EXPECT_STATUS(store_->QueryDataSets("main", QB::In("b", {true, 1.5})), kInvalidArgument, "'b'",
                "bool", "double");
  EXPECT_STATUS(store_->QueryDataSets("main", QB::Prefix("t", "1")), kInvalidArgument, "'t'");
  EXPECT_STATUS(store_->QueryDataSets("", QB::Range("u", int64_t{1}, "z")), kInvalidArgument, "'u'",
                "int64", "string");
  // Without an index, or on an unindexed field, kinds may differ: they simply never match.
  EXPECT_OK(store_->QueryDataSets("", QB::GreaterThan("s", int64_t{3})));
  EXPECT_OK(store_->QueryDataSets("main", QB::GreaterThan("u", "x")));
  // A double on an int64 field is fine (3.5 orders against integers).
  EXPECT_OK(store_->QueryDataSets("main", QB::GreaterThan("i", 3.5)));

  QueryParams bad;
  bad.limit = -2;
  EXPECT_STATUS(store_->QueryDataSets("main", QB::All(), bad), kInvalidArgument, "limit");
  bad.limit = 10;
  bad.offset = -1;
  EXPECT_STATUS(store_->QueryDataSets("main", QB::All(), bad), kInvalidArgument, "offset");

  ASSERT_OK_AND_ASSIGN(auto listed, store_->ListMetaIndexes());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0], (MetaIndexInfo{"main", schema}));
}

TEST_F(MetaQueryTest, PageTokensBelongToTheirQuery) {
  OpenRocksDb();
  ASSERT_OK(store_->CreateMetaIndex("main", TestSchema()));
  for (int i = 0; i < 30; ++i) {
    Put("d" + std::to_string(i),
        {{"t", AttributeValue::Int64(i % 7)}, {"s", AttributeValue::String(i % 2 ? "A" : "B")}});
  }
  QueryParams params;
  params.limit = 4;
  params.sort = {{"t", SortOrder::kDescending}};
  Query q = QB::Equal("s", "A");
  ASSERT_OK_AND_ASSIGN(QueryResult first, store_->QueryDataSets("main", q, params));
  ASSERT_FALSE(first.next_token.empty());
  QueryParams other = params;
  other.page_token = first.next_token;
  EXPECT_OK(store_->QueryDataSets("main", q, other));
  EXPECT_STATUS(store_->QueryDataSets("main", QB::Equal("s", "B"), other), kInvalidArgument,
                "token");
  other.sort[0].order = SortOrder::kAscending;
  EXPECT_STATUS(store_->QueryDataSets("main", q, other), kInvalidArgument, "token");
  other = params;
  other.page_token = "garbage";
  EXPECT_STATUS(store_->QueryDataSets("main", q, other), kInvalidArgument, "token");
  other.page_token = first.next_token;
  EXPECT_STATUS(store_->QueryDataSets("", q, other), kInvalidArgument, "token");
}

TEST_F(MetaQueryTest, ReferenceExampleNewestFirst) {
  OpenRocksDb();
  ASSERT_OK(
      store_->CreateMetaIndex("main", MetaIndexSchema{{{"status", IndexFieldType::kString},
                                                       {"create_time", IndexFieldType::kInt64},
                                                       {"source", IndexFieldType::kString},
                                                       {"accuracy", IndexFieldType::kString}}}));
  const int64_t now = 1'700'000'000'000;
  for (int i = 0; i < 90; ++i) {
    Put("run-" + std::to_string(i),
        {{"status", AttributeValue::String(i % 10 == 0 ? "INIT" : "DONE")},
         {"create_time", AttributeValue::Int64(now - i * 3'600'000)},
         {"source", AttributeValue::String(i % 3 == 0   ? "ECMWF"
                                           : i % 3 == 1 ? "NMC"
                                                        : "JMA")},
         {"accuracy", AttributeValue::String("1km")}});
  }
  Query q = QB::And({QB::Equal("status", "DONE"), QB::GreaterThan("create_time", now - 86'400'000),
                     QB::Or({QB::Equal("source", "ECMWF"), QB::Equal("source", "NMC")}),
                     QB::Equal("accuracy", "1km")});
  QueryParams params;
  params.sort = {{"create_time", SortOrder::kDescending}};
  params.limit = 10;
  params.get_total_count = true;
  ASSERT_OK_AND_ASSIGN(QueryResult r, store_->QueryDataSets("main", q, params));
  EXPECT_FALSE(r.scanned) << r.plan;
  // Hours 0..23, DONE (not multiples of 10), source not JMA (i % 3 != 2).
  std::vector<std::string> want;
  int total = 0;
  for (int i = 0; i < 24; ++i) {
    if (i % 10 == 0 || i % 3 == 2) continue;
    if (want.size() < 10) want.push_back("run-" + std::to_string(i));
    ++total;
  }
  EXPECT_EQ(Ids(r), want);
  EXPECT_EQ(r.total, total);
  EXPECT_FALSE(r.next_token.empty());
  ASSERT_OK_AND_ASSIGN(QueryResult s, store_->QueryDataSets("main", QB::Equal("u", 1)));
  EXPECT_TRUE(s.scanned) << s.plan;
}

// Not a test: prints query latencies on 100,000 data-less datasets in RocksDB. Run with
// --gtest_also_run_disabled_tests --gtest_filter='*Timing*'.
TEST_F(MetaQueryTest, DISABLED_Timing100k) {
  OpenRocksDb();
  ASSERT_OK(
      store_->CreateMetaIndex("main", MetaIndexSchema{{{"status", IndexFieldType::kString},
                                                       {"create_time", IndexFieldType::kInt64},
                                                       {"source", IndexFieldType::kString},
                                                       {"model", IndexFieldType::kString},
                                                       {"resolution", IndexFieldType::kDouble},
                                                       {"tag", IndexFieldType::kString}}}));
  std::mt19937_64 rng(1);
  const int64_t now = 1'700'000'000'000;
  static const char* sources[] = {"ECMWF", "NMC", "JMA", "DWD", "UKMO"};
  for (int i = 0; i < 100000; ++i) {
    char id[32];
    std::snprintf(id, sizeof(id), "run-%07d", i);
    DataSetMeta meta = MakeDataSet(
        id, {{"status", AttributeValue::String(rng() % 10 == 0 ? "INIT" : "DONE")},
             {"create_time", AttributeValue::Int64(now - static_cast<int64_t>(i) * 60'000)},
             {"source", AttributeValue::String(sources[rng() % 5])},
             {"model", AttributeValue::String("model-" + std::to_string(rng() % 50))},
             {"resolution", AttributeValue::Double(0.25 * (1 + rng() % 8))},
             {"tag", AttributeValue::String("tag-" + std::to_string(rng() % 1000))}});
    ASSERT_OK(store_->PutDataSetMeta(meta));
  }
  auto time = [&](const char* name, const Query& q, const QueryParams& params) {
    std::vector<double> us;
    QueryResult last;
    for (int k = 0; k < 300; ++k) {
      auto start = std::chrono::steady_clock::now();
      auto r = store_->QueryDataSets("main", q, params);
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      ASSERT_OK(r);
      last = std::move(r).value();
    }
    std::sort(us.begin(), us.end());
    std::printf("%-10s p50 %8.0f us  p99 %8.0f us  (%zu results) %s\n", name, us[150], us[296],
                last.metas.size(), last.plan.c_str());
  };
  QueryParams newest;
  newest.sort = {{"create_time", SortOrder::kDescending}};
  newest.limit = 10;
  time("selective", QB::And({QB::Equal("tag", "tag-123"), QB::Equal("status", "DONE")}), newest);
  time("reference",
       QB::And({QB::Equal("status", "DONE"), QB::GreaterThan("create_time", now - 86'400'000),
                QB::In("source", {"ECMWF", "NMC"})}),
       newest);
  time("broad", QB::Equal("status", "DONE"), newest);
  QueryParams oldest = newest;
  oldest.sort[0].order = SortOrder::kAscending;
  time("broad-asc", QB::Equal("status", "DONE"), oldest);
  QueryParams page3 = newest;
  page3.offset = 20;
  time("all-page3", QB::All(), page3);
  time("scan", QB::Equal("unindexed", "x"), newest);
}

TEST(MetaIndexKeysTest, EncodingsPreserveOrder) {
  std::mt19937_64 rng(5);
  auto enc_s = [](const std::string& v) {
    std::string k;
    AppendIndexString(v, &k);
    return k;
  };
  for (int i = 0; i < 2000; ++i) {
    std::string a(rng() % 5, '\0'), b(rng() % 5, '\0');
    for (char& c : a)
      c = "\0\x01\xff"
          "a"[rng() % 4];
    for (char& c : b)
      c = "\0\x01\xff"
          "a"[rng() % 4];
    EXPECT_EQ(a < b, enc_s(a) < enc_s(b)) << EscapeForMessage(a) << " " << EscapeForMessage(b);
    std::string decoded;
    EXPECT_TRUE(DecodeIndexString(enc_s(a), &decoded));
    EXPECT_EQ(decoded, a);
    const auto x = static_cast<int64_t>(rng()), y = static_cast<int64_t>(rng() >> (rng() % 64));
    std::string kx, ky;
    AppendIndexInt64(x, &kx);
    AppendIndexInt64(y, &ky);
    EXPECT_EQ(x < y, kx < ky);
    EXPECT_EQ(DecodeIndexInt64(kx), x);
  }
  const double ds[] = {-INFINITY, -1e300, -1.5, -1e-300, 0.0, 1e-300, 2.0, 1e300, INFINITY};
  for (size_t i = 0; i + 1 < std::size(ds); ++i) {
    std::string a, b;
    AppendIndexDouble(ds[i], &a);
    AppendIndexDouble(ds[i + 1], &b);
    EXPECT_LT(a, b);
    EXPECT_EQ(DecodeIndexDouble(a), ds[i]);
  }
  std::string z, nz, nan1, nan2, inf;
  AppendIndexDouble(0.0, &z);
  AppendIndexDouble(-0.0, &nz);
  AppendIndexDouble(std::nan(""), &nan1);
  AppendIndexDouble(-std::nan(""), &nan2);
  AppendIndexDouble(INFINITY, &inf);
  EXPECT_EQ(z, nz);
  EXPECT_EQ(nan1, nan2);
  EXPECT_LT(inf, nan1);
}

// Covered values round-trip every kind (a long string: a varint length of two bytes), and a
// value cut at any byte, with trailing bytes, a bad kind or a bad bool is refused, never read
// past its end (the caller then reads the meta).
TEST(CoveredValuesTest, RoundTripAndDamageRefused) {
  const MetaIndexInfo index{"main",
                            {{{"s", IndexFieldType::kString},
                              {"i", IndexFieldType::kInt64},
                              {"d", IndexFieldType::kDouble},
                              {"b", IndexFieldType::kBool},
                              {"missing", IndexFieldType::kString},
                              {"long", IndexFieldType::kString}}}};
  Attributes attrs;
  attrs["s"] = AttributeValue::String("ECMWF");
  attrs["i"] = AttributeValue::Int64(-1'735'689'600'000);
  attrs["d"] = AttributeValue::Double(-0.25);
  attrs["b"] = AttributeValue::Bool(true);
  attrs["long"] = AttributeValue::String(std::string(300, 'x'));
  std::string value;
  internal_grid::EncodeCoveredValues(index, attrs, &value);
  std::vector<internal_grid::Scalar> row;
  ASSERT_TRUE(internal_grid::DecodeCoveredValues(value, 6, &row));
  ASSERT_EQ(row.size(), 6u);
  EXPECT_EQ(row[0].kind, internal_grid::Scalar::kString);
  EXPECT_EQ(row[0].s, "ECMWF");
  EXPECT_EQ(row[1].i, -1'735'689'600'000);
  EXPECT_EQ(row[2].d, -0.25);
  EXPECT_TRUE(row[3].b);
  EXPECT_EQ(row[4].kind, internal_grid::Scalar::kNone);
  EXPECT_EQ(row[5].s, std::string(300, 'x'));

  EXPECT_FALSE(internal_grid::DecodeCoveredValues(value, 5, &row));  // another field count
  EXPECT_FALSE(internal_grid::DecodeCoveredValues("", 6, &row));     // before format 3
  for (size_t cut = 0; cut < value.size(); ++cut) {
    EXPECT_FALSE(internal_grid::DecodeCoveredValues(value.substr(0, cut), 6, &row)) << cut;
  }
  EXPECT_FALSE(internal_grid::DecodeCoveredValues(value + '\0', 6, &row));
  std::string bad_kind = value;
  bad_kind[2] = '\x07';  // the first field's kind
  EXPECT_FALSE(internal_grid::DecodeCoveredValues(bad_kind, 6, &row));
  // 01 06 | 03 05 "ECMWF" | 01 i64 | 02 f64 | 04 b | 00 | 03 varint(300) x{300}
  ASSERT_EQ(value.size(), 333u);
  const size_t bool_at = 28;
  ASSERT_EQ(value[bool_at - 1], '\x04');
  std::string bad_bool = value;
  bad_bool[bool_at] = '\x02';
  EXPECT_FALSE(internal_grid::DecodeCoveredValues(bad_bool, 6, &row));
  std::string long_length = value;  // the long string claims more bytes than there are
  long_length[long_length.size() - 300 - 2] = '\xff';
  EXPECT_FALSE(internal_grid::DecodeCoveredValues(long_length, 6, &row));
}

}  // namespace
}  // namespace gridstore::grid
