// Copyright 2026 The GridStore Authors.
//
// Meta queries at scale, side by side with SQLite in one run: N data-less datasets with realistic
// attributes (source, model, status, create_time, resolution, tags) go into a GridStore (RocksDB,
// one meta index over those fields) and into an SQLite table with one index per field (the same
// access paths). Then selective and broad queries, sorted and paged, each run many times with
// varied parameters; both engines must return the same ids. GridStore runs each query twice, for
// the page's ids alone (as SQLite returns them: the compared figure) and for its metas (read and
// decoded: another column). Prints p50/p99 per engine and their ratio as a table, and the same as
// JSON (--json FILE).
//
//   meta_query_bench [--n 1000000] [--store DIR|URI] [--sqlite FILE|:memory:] [--runs 300]
//                    [--json FILE] [--reuse 1] [--settle SECONDS] [--only KIND]
//
// GridStore loads with PutDataSetMetas, 1,000 metas per call (as `gridstore meta put` does).
// --reuse 1 keeps a store left by an earlier run with the same --n (the rows are deterministic)
// and loads only SQLite; --settle waits after the load (its compactions finish) before the
// queries; --only runs one query kind (for profiling).
#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/grid/grid_store.h"

namespace {

using namespace gridstore::grid;
using gridstore::bench::Check;
using gridstore::bench::Clock;
using gridstore::bench::Die;

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kEpoch = 1'735'689'600'000;  // 2025-01-01T00:00Z
constexpr int kDays = 365;
// The query kinds, in the order they run (--only picks one).
const char* const kKindNames[] = {"selective", "selective_or", "broad_top10", "broad_page",
                                  "source_in_count"};
const char* const kSources[] = {"ECMWF", "NMC", "JMA", "DWD", "UKMO", "NCEP"};
const char* const kModels[] = {"global", "regional", "ensemble"};
const double kResolutions[] = {0.1, 0.25, 0.5, 1.0};

struct Row {
  std::string id, source, model, status, tag1, tag2;
  int64_t create_time;
  double resolution;
};

Row MakeRow(int64_t i, std::mt19937_64& rng) {
  Row r;
  const int s = static_cast<int>(rng() % 6), m = static_cast<int>(rng() % 3);
  r.source = kSources[s];
  r.model = std::string(kSources[s]) + "-" + kModels[m];
  r.status = rng() % 20 == 0 ? "INIT" : "DONE";
  r.create_time = kEpoch + static_cast<int64_t>(rng() % (kDays * kDayMs));
  r.resolution = kResolutions[rng() % 4];
  r.tag1 = std::string(1, static_cast<char>('A' + rng() % 10));
  r.tag2 = std::string(1, "XYZ"[rng() % 3]);
  char id[96];
  std::snprintf(id, sizeof(id), "%s/%s/%" PRId64 "/%07" PRId64, r.source.c_str(), r.model.c_str(),
                r.create_time, i);
  r.id = id;
  return r;
}

void Sql(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK)
    Die(std::string(sql) + ": " + err);
}

// One query as both engines see it.
struct Case {
  Query query;
  QueryParams params;
  std::string sql;  // SELECT ... returning id first, with ? bound by `bind`
  std::function<void(sqlite3_stmt*)> bind;
};

struct Kind {
  std::string name;
  std::string description;
  std::function<Case(std::mt19937_64&)> make;
  // GridStore with the page's ids only (as SQLite returns them) and with the page's metas.
  std::vector<double> grid_us, grid_metas_us, sqlite_us;
  int64_t rows = 0;
  int mismatches = 0;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

struct Options {
  int64_t n = 1'000'000;
  int runs = 300;
  std::string store_path = "/tmp/meta_query_bench_store";
  std::string sqlite_path = ":memory:";
  std::string json_path;
  int reuse = 0;
  int settle = 0;
  std::string only;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app("Meta queries over N data-less datasets, GridStore and SQLite side by side.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("--n", o.n, "Datasets")->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  app.add_option("--runs", o.runs, "Runs per query kind")->check(CLI::Range(1, 100'000'000));
  app.add_option("--store", o.store_path,
                 "The GridStore store: a directory (replaced unless --reuse 1) or a store URI "
                 "(rados://...: never replaced)");
  app.add_option("--sqlite", o.sqlite_path, "The SQLite database (replaced), or :memory:");
  app.add_option("--json", o.json_path, "Also write the JSON line to this file");
  app.add_option("--reuse", o.reuse,
                 "1: keep a store loaded by an earlier run with the same --n, load only SQLite")
      ->check(CLI::Range(0, 1));
  app.add_option("--settle", o.settle, "Seconds to wait between the load and the queries")
      ->check(CLI::Range(0, 3600));
  app.add_option("--only", o.only, "Run one query kind only")
      ->check(
          CLI::IsMember(std::vector<std::string>(std::begin(kKindNames), std::end(kKindNames))));
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return o;
}

// ---- load ----

// Whether GridStore is to be loaded: always for a directory unless --reuse 1 finds `marker` with
// the same --n; never for a reused store URI. A store URI (rados://POOL?...&namespace=NS) is
// never replaced: give a fresh namespace, or --reuse 1 to take it as loaded by an earlier run
// with the same --n.
bool ShouldLoadGrid(const Options& o, bool store_uri, const std::string& marker) {
  const bool reuse = o.reuse != 0;
  if (!reuse || store_uri) return !(store_uri && reuse);
  FILE* f = std::fopen(marker.c_str(), "r");
  long long loaded = -1;
  if (f != nullptr) {
    if (std::fscanf(f, "%lld", &loaded) != 1) loaded = -1;
    std::fclose(f);
  }
  return loaded != o.n;
}

// Opens the store (the meta index made when it is to be loaded).
std::unique_ptr<GridStore> OpenStore(const std::string& store_path, bool load_grid) {
  const auto opening = std::chrono::steady_clock::now();
  auto store_or = GridStore::Open(store_path, {.create_if_missing = true});
  Check(store_or.status(), "open store");
  // What a store with a catalog replica (rados://...&catalog_replica=1) spends loading it.
  std::fprintf(stderr, "open: %.2f s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - opening).count());
  auto store = std::move(store_or).value();
  const MetaIndexSchema schema{{{"source", IndexFieldType::kString},
                                {"model", IndexFieldType::kString},
                                {"status", IndexFieldType::kString},
                                {"create_time", IndexFieldType::kInt64},
                                {"resolution", IndexFieldType::kDouble},
                                {"tag1", IndexFieldType::kString},
                                {"tag2", IndexFieldType::kString}}};
  if (load_grid) Check(store->CreateMetaIndex("main", schema), "CreateMetaIndex");
  return store;
}

// Opens the SQLite database with the table and one index per field.
sqlite3* OpenSqlite(const std::string& sqlite_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(sqlite_path.c_str(), &db) != SQLITE_OK) Die("sqlite3_open");
  Sql(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  Sql(db,
      "CREATE TABLE datasets (id TEXT PRIMARY KEY, source TEXT, model TEXT, status TEXT, "
      "create_time INTEGER, resolution REAL, tag1 TEXT, tag2 TEXT);"
      "CREATE INDEX i_source ON datasets(source); CREATE INDEX i_model ON datasets(model);"
      "CREATE INDEX i_status ON datasets(status);"
      "CREATE INDEX i_create_time ON datasets(create_time);"
      "CREATE INDEX i_resolution ON datasets(resolution); CREATE INDEX i_tag1 ON datasets(tag1);"
      "CREATE INDEX i_tag2 ON datasets(tag2);");
  return db;
}

// The data-less meta of row `r` (one variable described, no data, if `need_variable`).
DataSetMeta MakeMeta(const Row& r, bool need_variable) {
  DataSetMeta meta;
  meta.id = r.id;
  if (need_variable) meta.variables.push_back({.name = "t2m"});
  meta.attributes["source"] = AttributeValue::String(r.source);
  meta.attributes["model"] = AttributeValue::String(r.model);
  meta.attributes["status"] = AttributeValue::String(r.status);
  meta.attributes["create_time"] = AttributeValue::Int64(r.create_time);
  meta.attributes["resolution"] = AttributeValue::Double(r.resolution);
  meta.attributes["tag1"] = AttributeValue::String(r.tag1);
  meta.attributes["tag2"] = AttributeValue::String(r.tag2);
  return meta;
}

void InsertSqlRow(sqlite3* db, sqlite3_stmt* insert, const Row& r) {
  sqlite3_bind_text(insert, 1, r.id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 2, r.source.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 3, r.model.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 4, r.status.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(insert, 5, r.create_time);
  sqlite3_bind_double(insert, 6, r.resolution);
  sqlite3_bind_text(insert, 7, r.tag1.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(insert, 8, r.tag2.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(insert) != SQLITE_DONE) Die(sqlite3_errmsg(db));
  sqlite3_reset(insert);
}

// Seconds each engine spent loading.
struct LoadTimes {
  double grid_s = 0, sqlite_s = 0;
};

// Loads the n rows into SQLite, and into GridStore if `load_grid`.
LoadTimes Load(int64_t n, GridStore& store, sqlite3* db, bool load_grid) {
  // A data-less meta if the library allows one; else one variable described, no data written.
  DataSetMeta probe;
  probe.id = "probe";
  const bool need_variable = !probe.Validate().ok();

  std::mt19937_64 rng(42);
  LoadTimes times;
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert,
                     nullptr);
  Sql(db, "BEGIN");
  constexpr size_t kLoadBatch = 1000;
  std::vector<DataSetMeta> batch;
  for (int64_t i = 0; i < n; ++i) {
    const Row r = MakeRow(i, rng);
    DataSetMeta meta = MakeMeta(r, need_variable);
    auto t0 = Clock::now();
    if (load_grid) {
      batch.push_back(std::move(meta));
      if (batch.size() == kLoadBatch || i + 1 == n) {
        Check(store.PutDataSetMetas(batch), "PutDataSetMetas");
        batch.clear();
      }
    }
    auto t1 = Clock::now();
    InsertSqlRow(db, insert, r);
    auto t2 = Clock::now();
    times.grid_s += std::chrono::duration<double>(t1 - t0).count();
    times.sqlite_s += std::chrono::duration<double>(t2 - t1).count();
    if ((i + 1) % 100000 == 0) {
      std::fprintf(stderr, "loaded %" PRId64 " (gridstore %.1f s, sqlite %.1f s)\n", i + 1,
                   times.grid_s, times.sqlite_s);
    }
  }
  auto t0 = Clock::now();
  Sql(db, "COMMIT; ANALYZE;");
  times.sqlite_s += std::chrono::duration<double>(Clock::now() - t0).count();
  sqlite3_finalize(insert);
  return times;
}

// ---- queries ----

// The start of a random day of the year.
int64_t Day(std::mt19937_64& g) { return kEpoch + static_cast<int64_t>(g() % kDays) * kDayMs; }

Case SelectiveCase(std::mt19937_64& g) {
  const int s = static_cast<int>(g() % 6), m = static_cast<int>(g() % 3);
  const std::string source = kSources[s];
  const std::string model = source + "-" + kModels[m];
  const int64_t d = Day(g);
  Case c;
  c.query =
      QueryBuilder::And({QueryBuilder::Equal("source", source), QueryBuilder::Equal("model", model),
                         QueryBuilder::GreaterEqual("create_time", d),
                         QueryBuilder::LessThan("create_time", d + kDayMs)});
  c.params.sort = {{"create_time", SortOrder::kDescending}};
  c.params.limit = -1;
  c.sql =
      "SELECT id FROM datasets WHERE source = ?1 AND model = ?2 AND "
      "create_time >= ?3 AND create_time < ?4 ORDER BY create_time DESC, id";
  c.bind = [=](sqlite3_stmt* st) {
    sqlite3_bind_text(st, 1, source.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, model.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, d);
    sqlite3_bind_int64(st, 4, d + kDayMs);
  };
  return c;
}

Case SelectiveOrCase(std::mt19937_64& g) {
  const int64_t d = Day(g);
  const std::string t1(1, static_cast<char>('A' + g() % 10));
  const std::string t2(1, "XYZ"[g() % 3]);
  Case c;
  c.query = QueryBuilder::And(
      {QueryBuilder::Equal("status", "DONE"),
       QueryBuilder::Range("create_time", d, d + kDayMs, true, false),
       QueryBuilder::Or({QueryBuilder::Equal("tag1", t1), QueryBuilder::Equal("tag2", t2)})});
  c.params.sort = {{"create_time", SortOrder::kDescending}};
  c.params.limit = 10;
  c.sql =
      "SELECT id FROM datasets WHERE status = 'DONE' AND create_time >= ?1 "
      "AND create_time < ?2 AND (tag1 = ?3 OR tag2 = ?4) "
      "ORDER BY create_time DESC, id LIMIT 10";
  c.bind = [=](sqlite3_stmt* st) {
    sqlite3_bind_int64(st, 1, d);
    sqlite3_bind_int64(st, 2, d + kDayMs);
    sqlite3_bind_text(st, 3, t1.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, t2.c_str(), -1, SQLITE_TRANSIENT);
  };
  return c;
}

Case BroadTop10Case(std::mt19937_64& g) {
  const int64_t before = Day(g);
  Case c;
  c.query = QueryBuilder::And(
      {QueryBuilder::Equal("status", "DONE"), QueryBuilder::LessThan("create_time", before)});
  c.params.sort = {{"create_time", SortOrder::kDescending}};
  c.params.limit = 10;
  c.sql =
      "SELECT id FROM datasets WHERE status = 'DONE' AND create_time < ?1 "
      "ORDER BY create_time DESC, id LIMIT 10";
  c.bind = [=](sqlite3_stmt* st) { sqlite3_bind_int64(st, 1, before); };
  return c;
}

Case BroadPageCase(std::mt19937_64& g) {
  const int64_t offset = static_cast<int64_t>(g() % 100) * 10;
  Case c;
  c.query = QueryBuilder::Equal("status", "DONE");
  c.params.sort = {{"create_time", SortOrder::kDescending}};
  c.params.limit = 10;
  c.params.offset = offset;
  c.sql =
      "SELECT id FROM datasets WHERE status = 'DONE' "
      "ORDER BY create_time DESC, id LIMIT 10 OFFSET ?1";
  c.bind = [=](sqlite3_stmt* st) { sqlite3_bind_int64(st, 1, offset); };
  return c;
}

Case SourceInCountCase(std::mt19937_64& g) {
  const std::string s1 = kSources[g() % 6], s2 = kSources[g() % 6];
  const double res = kResolutions[g() % 4];
  Case c;
  c.query = QueryBuilder::And(
      {QueryBuilder::In("source", {s1, s2}), QueryBuilder::Equal("resolution", res)});
  c.params.limit = 0;
  c.params.get_total_count = true;
  c.sql =
      "SELECT COUNT(*) FROM datasets WHERE source IN (?1, ?2) AND "
      "resolution = ?3";
  c.bind = [=](sqlite3_stmt* st) {
    sqlite3_bind_text(st, 1, s1.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, s2.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 3, res);
  };
  return c;
}

// The query kinds, in the order of kKindNames; only the one named `only` if it is not empty.
std::vector<Kind> MakeKinds(const std::string& only) {
  std::vector<Kind> kinds;
  kinds.push_back({kKindNames[0],
                   "source = S and model = M and create_time in one day, newest first",
                   SelectiveCase});
  kinds.push_back({kKindNames[1], "status = DONE and day and (tag1 = A or tag2 = X), newest first",
                   SelectiveOrCase});
  kinds.push_back({kKindNames[2],
                   "status = DONE, newest first, limit 10 (newest before a varied time)",
                   BroadTop10Case});
  kinds.push_back(
      {kKindNames[3], "status = DONE, newest first, 10 per page, offset 0..990", BroadPageCase});
  kinds.push_back(
      {kKindNames[4], "source in (S1, S2) and resolution = R, count only", SourceInCountCase});
  if (!only.empty()) {
    std::erase_if(kinds, [&](const Kind& k) { return k.name != only; });
  }
  return kinds;
}

// Runs `c` in SQLite: its ids into *ids, or its count into *count; returns microseconds.
double RunSqlite(sqlite3* db, const Case& c, std::vector<std::string>* ids, int64_t* count) {
  sqlite3_stmt* st = nullptr;
  auto t2 = Clock::now();
  if (sqlite3_prepare_v2(db, c.sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    Die(sqlite3_errmsg(db));
  }
  c.bind(st);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (c.params.get_total_count) {
      *count = sqlite3_column_int64(st, 0);
    } else {
      ids->emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    }
  }
  sqlite3_finalize(st);
  auto t3 = Clock::now();
  return std::chrono::duration<double, std::micro>(t3 - t2).count();
}

// Runs kind `k` `runs` times in both engines, recording times, rows and mismatches.
void RunKind(Kind& k, GridStore& store, sqlite3* db, int runs) {
  std::mt19937_64 g(7);
  for (int run = 0; run < runs; ++run) {
    Case c = k.make(g);
    // Both GridStore forms of the query, in alternating order (the first warms the caches).
    QueryParams ids_params = c.params;
    ids_params.ids_only = true;
    QueryResult result, metas;
    double ids_us = 0, metas_us = 0;
    for (int form = 0; form < 2; ++form) {
      const bool ids_form = (form == 0) == (run % 2 == 0);
      auto t0 = Clock::now();
      auto r = store.QueryDataSets("main", c.query, ids_form ? ids_params : c.params);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      Check(r.status(), "QueryDataSets");
      (ids_form ? ids_us : metas_us) = us;
      (ids_form ? result : metas) = std::move(r).value();
    }
    std::vector<std::string> ids;
    int64_t count = -1;
    const double sqlite_us = RunSqlite(db, c, &ids, &count);
    k.grid_us.push_back(ids_us);
    k.grid_metas_us.push_back(metas_us);
    k.sqlite_us.push_back(sqlite_us);
    if (run == 0) std::fprintf(stderr, "%s plan: %s\n", k.name.c_str(), result.plan.c_str());
    if (c.params.get_total_count) {
      k.rows += count;
      if (result.total != count || metas.total != count) ++k.mismatches;
    } else {
      std::vector<std::string> got;
      for (const auto& m : metas.metas) got.push_back(m.id);
      k.rows += static_cast<int64_t>(got.size());
      if (got != ids || result.ids != ids) ++k.mismatches;
    }
  }
}

// ---- report ----

// Prints the table and returns the JSON line (with its newline).
std::string Report(const Options& o, const std::vector<Kind>& kinds, bool load_grid,
                   const LoadTimes& load) {
  const int64_t n = o.n;
  const int runs = o.runs;
  std::printf("meta_query_bench: %" PRId64 " datasets, %d runs per query kind\n", n, runs);
  if (load_grid) {
    std::printf("load: gridstore %.1f s (%.0f metas/s), sqlite %.1f s (%s)\n", load.grid_s,
                static_cast<double>(n) / load.grid_s, load.sqlite_s, o.sqlite_path.c_str());
  } else {
    std::printf("load: gridstore reused from an earlier run, sqlite %.1f s (%s)\n", load.sqlite_s,
                o.sqlite_path.c_str());
  }
  // "gs": ids only, like SQLite's; "metas": the page's metas read and decoded as well.
  std::printf("%-16s %10s %10s %10s %10s %9s %9s %10s %10s %8s %s\n", "query", "gs p50 us",
              "gs p99 us", "sq p50 us", "sq p99 us", "p50 ratio", "p99 ratio", "metas p50",
              "metas p99", "rows/q", "mismatches");
  std::string json = "{\"datasets\": " + std::to_string(n) + ", \"runs\": " + std::to_string(runs) +
                     ", \"load_s\": {\"gridstore\": " + std::to_string(load.grid_s) +
                     ", \"sqlite\": " + std::to_string(load.sqlite_s) + "}, \"queries\": [";
  for (size_t i = 0; i < kinds.size(); ++i) {
    const Kind& k = kinds[i];
    const double g50 = Percentile(k.grid_us, 0.5), g99 = Percentile(k.grid_us, 0.99);
    const double s50 = Percentile(k.sqlite_us, 0.5), s99 = Percentile(k.sqlite_us, 0.99);
    const double m50 = Percentile(k.grid_metas_us, 0.5), m99 = Percentile(k.grid_metas_us, 0.99);
    std::printf("%-16s %10.0f %10.0f %10.0f %10.0f %9.2f %9.2f %10.0f %10.0f %8.1f %d\n",
                k.name.c_str(), g50, g99, s50, s99, g50 / s50, g99 / s99, m50, m99,
                static_cast<double>(k.rows) / static_cast<double>(runs), k.mismatches);
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "%s{\"name\": \"%s\", \"what\": \"%s\", \"gridstore_p50_us\": %.1f, "
                  "\"gridstore_p99_us\": %.1f, \"sqlite_p50_us\": %.1f, \"sqlite_p99_us\": %.1f, "
                  "\"gridstore_metas_p50_us\": %.1f, \"gridstore_metas_p99_us\": %.1f, "
                  "\"mismatches\": %d}",
                  i ? ", " : "", k.name.c_str(), k.description.c_str(), g50, g99, s50, s99, m50,
                  m99, k.mismatches);
    json += buf;
  }
  json += "]}\n";
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const std::string loaded_marker = o.store_path + "/bench-loaded-n";
  const bool store_uri = o.store_path.find("://") != std::string::npos;
  const bool load_grid = ShouldLoadGrid(o, store_uri, loaded_marker);
  if (load_grid && !store_uri) std::filesystem::remove_all(o.store_path);
  if (o.sqlite_path != ":memory:") std::filesystem::remove(o.sqlite_path);
  auto store = OpenStore(o.store_path, load_grid);
  sqlite3* db = OpenSqlite(o.sqlite_path);
  const LoadTimes load = Load(o.n, *store, db, load_grid);
  // The load's compactions go on in the background; --settle lets them finish before queries.
  if (o.settle > 0) std::this_thread::sleep_for(std::chrono::seconds(o.settle));
  if (load_grid && !store_uri) {
    FILE* f = std::fopen(loaded_marker.c_str(), "w");
    if (f != nullptr) {
      std::fprintf(f, "%" PRId64 "\n", o.n);
      std::fclose(f);
    }
  }

  std::vector<Kind> kinds = MakeKinds(o.only);
  for (Kind& k : kinds) RunKind(k, *store, db, o.runs);

  const std::string json = Report(o, kinds, load_grid, load);
  std::fputs(json.c_str(), stdout);
  if (!o.json_path.empty()) {
    FILE* f = std::fopen(o.json_path.c_str(), "w");
    if (f != nullptr) {
      std::fputs(json.c_str(), f);
      std::fclose(f);
    }
  }
  sqlite3_close(db);
  int mismatches = 0;
  for (const Kind& k : kinds) mismatches += k.mismatches;
  return mismatches == 0 ? 0 : 1;
}
