// Copyright 2026 The GridStore Authors.
#include "bench/fetch_bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gridstore::bench::fetch {
namespace {

using nlohmann::json;

void PrintHeader(const Run& run) {
  const DataSet& d = run.data;
  const json& machine = run.report["machine"];
  std::printf("# GridStore fetch benchmark (bench/fetch_bench), %s\n\n",
              run.report["date"].get<std::string>().c_str());
  std::printf("Data: %s: %zu variables (", run.options.work.c_str(), d.variables.size());
  for (size_t i = 0; i < d.variables.size(); ++i) {
    std::printf("%s%s", i ? ", " : "", d.variables[i].c_str());
  }
  std::printf(") x %s (t x z x lat x lon) float32 = %s bytes raw.\n", BoxString(d.shape).c_str(),
              Thousands(d.raw_bytes).c_str());
  std::printf("DERIVED data, %s:\n", d.manifest["data"]["description"].get<std::string>().c_str());
  for (const json& v : d.manifest["data"]["variables"]) {
    std::printf("  %-7s from %s: %s\n", v["name"].get<std::string>().c_str(),
                v["source_file"].get<std::string>().c_str(),
                v["derivation"].get<std::string>().c_str());
  }
  std::printf(
      "Machine: %s, %ld cores, %s RAM, Linux %s, netCDF %s, zstd %s, %s build.\n\n",
      machine["cpu"].get<std::string>().c_str(), machine["cores"].get<long>(),
      machine["memory"].get<std::string>().c_str(), machine["kernel"].get<std::string>().c_str(),
      machine["netcdf"].get<std::string>().c_str(), machine["zstd"].get<std::string>().c_str(),
      machine["build_type"].get<std::string>().c_str());
}

// "; directory size ...": what a store's size holds, and its blocks' own ratio.
std::string FormatWhat(const Format& f, double raw) {
  std::string what = f.description;
  if (f.block_bytes > 0) {
    what += "; directory size (settled, no WAL); the blocks alone: " + Thousands(f.block_bytes) +
            " bytes, ratio " + Fixed(raw / static_cast<double>(f.block_bytes), 3);
  }
  return what;
}

void PrintFormats(const DataSet& d) {
  const double raw = static_cast<double>(d.raw_bytes);
  std::printf("## Formats (compression ratio = raw bytes / bytes on disk)\n\n");
  std::printf("| format | what | bytes on disk | ratio |\n|---|---|---:|---:|\n");
  for (const Format& f : d.formats) {
    std::printf("| %s | %s | %s | %.3f |\n", f.name.c_str(), FormatWhat(f, raw).c_str(),
                Thousands(f.bytes).c_str(), raw / static_cast<double>(f.bytes));
  }
}

void PrintMethod(const Run& run) {
  const DecodeSpeed& speed = run.speed;
  std::printf(
      "\nzstd single-core decode speed, measured in this run: %.0f MB/s (ZSTD_decompressDCtx "
      "on %d of the store's blocks, %.2f MB raw, ratio %.2f); whole grid::DecodeBlock "
      "(zstd + unshuffle + XXH3): %.0f MB/s.\n\n",
      speed.zstd_mb_s, speed.blocks, static_cast<double>(speed.raw_bytes) / 1e6,
      static_cast<double>(speed.raw_bytes) /
          static_cast<double>(std::max<uint64_t>(1, speed.stored_bytes)),
      speed.decode_block_mb_s);

  std::printf(
      "Queries (positions pseudo-random, seed %llu; one random variable per run except Q4):\n",
      static_cast<unsigned long long>(run.options.seed));
  for (const QueryResult& qr : run.results) {
    std::printf("  %s %-26s box %s (t x z x x x y)%s\n", qr.query.id.c_str(), qr.query.name.c_str(),
                BoxString(qr.query.shape).c_str(),
                qr.query.all_variables ? ", every variable" : "");
  }
  std::printf("\nWarm: %s.\nCold: %s.\nThreads: %s.\nValidation: %s: all equal.\n\n",
              run.warm_note.c_str(), run.cold_note.c_str(),
              run.report["method"]["threads"].get<std::string>().c_str(),
              run.report["method"]["validation"].get<std::string>().c_str());
}

// One table of medians / p99 of `member`, with ratios netCDF / GridStore.
void PrintTimingTable(const Run& run, const char* title, std::vector<double> EngineRuns::*member) {
  std::printf("## %s: median / p99 ms; ratio = netCDF median / GridStore median (1t, 2t)\n\n",
              title);
  std::printf("| query | gridstore-1t | gridstore-2t |");
  for (const std::string& nc : run.nc_names) std::printf(" %s | ratio 1t, 2t |", nc.c_str());
  std::printf("\n|---|---:|---:|");
  for (size_t i = 0; i < run.nc_names.size(); ++i) std::printf("---:|---:|");
  std::printf("\n");
  for (const QueryResult& qr : run.results) {
    const Summary g1 = Summarize(qr.runs.at(kGs1).*member);
    const Summary g2 = Summarize(qr.runs.at(kGs2).*member);
    std::printf("| %s %s | %s / %s | %s / %s |", qr.query.id.c_str(), qr.query.name.c_str(),
                Ms(g1.p50).c_str(), Ms(g1.p99).c_str(), Ms(g2.p50).c_str(), Ms(g2.p99).c_str());
    for (const std::string& nc : run.nc_names) {
      const Summary s = Summarize(qr.runs.at(nc).*member);
      std::printf(" %s / %s | %s, %s |", Ms(s.p50).c_str(), Ms(s.p99).c_str(),
                  Ratio(s.p50 / g1.p50).c_str(), Ratio(s.p50 / g2.p50).c_str());
    }
    std::printf("\n");
  }
  std::printf("\n");
}

void PrintColdOpen(const Run& run) {
  std::printf("## Cold open alone: median / p99 ms\n\n| query |");
  for (auto& e : run.engines) std::printf(" %s |", e->name().c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < run.engines.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (const QueryResult& qr : run.results) {
    std::printf("| %s |", qr.query.id.c_str());
    for (auto& e : run.engines) {
      const Summary s = Summarize(qr.runs.at(e->name()).cold_open);
      std::printf(" %s / %s |", Ms(s.p50).c_str(), Ms(s.p99).c_str());
    }
    std::printf("\n");
  }
  std::printf("\n");
}

void PrintDecodingWork(const Run& run) {
  const DecodeSpeed& speed = run.speed;
  std::printf(
      "## GridStore's decoding work (warm medians) and its bound\n\n"
      "bound = bytes decoded / zstd single-core decode speed (%.0f MB/s): the fetch's zstd work "
      "alone on one core; 2 threads can at best halve it.\n\n",
      speed.zstd_mb_s);
  std::printf(
      "| query | blocks | bytes decoded | bytes read (stored) | bytes returned | bound 1 core | "
      "1t / bound | 2t / (bound / 2) | 1t cache on | 2t cache on |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const QueryResult& qr : run.results) {
    const EngineRuns& r1 = qr.runs.at(kGs1);
    const double decoded = Median(r1.bytes_decoded);
    const double bound = speed.zstd_mb_s > 0 ? decoded / (speed.zstd_mb_s * 1e6) : 0;
    const double t1 = Median(r1.warm), t2 = Median(qr.runs.at(kGs2).warm);
    const Summary c1 = Summarize(qr.runs.at(kGs1Cache).warm);
    const Summary c2 = Summarize(qr.runs.at(kGs2Cache).warm);
    std::printf("| %s | %.0f | %s | %s | %s | %s ms | %s | %s | %s / %s | %s / %s |\n",
                qr.query.id.c_str(), Median(r1.blocks),
                Thousands(static_cast<uint64_t>(decoded)).c_str(),
                Thousands(static_cast<uint64_t>(Median(r1.bytes_read))).c_str(),
                Thousands(r1.bytes_returned).c_str(), Ms(bound).c_str(),
                bound > 0 ? Ratio(t1 / bound).c_str() : "-",
                bound > 0 ? Ratio(t2 / (bound / 2)).c_str() : "-", Ms(c1.p50).c_str(),
                Ms(c1.p99).c_str(), Ms(c2.p50).c_str(), Ms(c2.p99).c_str());
  }
  std::printf("\n");
}

void PrintThroughput(const Run& run) {
  const bool cold = run.cold;
  std::printf(
      "## Q5 throughput: MB/s of result (bytes returned / median time)\n\n| engine | warm "
      "|%s\n|---|---:|%s\n",
      cold ? " cold fetch | cold open + fetch |" : "", cold ? "---:|---:|" : "");
  for (const QueryResult& qr : run.results) {
    if (qr.query.id != "Q5") continue;
    const double bytes = static_cast<double>(qr.runs.at(kGs1).bytes_returned);
    std::vector<std::string> names;
    for (auto& e : run.engines) names.push_back(e->name());
    names.push_back(kGs1Cache);
    names.push_back(kGs2Cache);
    for (const std::string& name : names) {
      const EngineRuns& r = qr.runs.at(name);
      std::printf("| %s | %.0f |", name.c_str(), bytes / Median(r.warm) / 1e6);
      if (cold && !r.cold_query.empty()) {
        std::printf(" %.0f | %.0f |", bytes / Median(r.cold_query) / 1e6,
                    bytes / Median(r.cold_total) / 1e6);
      } else if (cold) {
        std::printf(" - | - |");
      }
      std::printf("\n");
    }
  }
}

void PrintLoad(const Run& run) {
  const bool cold = run.cold;
  std::printf(
      "\n## Other load on the (shared) machine during each phase, in cores (machine busy time "
      "minus this process's, per second), and seconds waited for idle CPUs before it\n\n"
      "| query | warm: other load | waited | cold: other load | waited |\n"
      "|---|---:|---:|---:|---:|\n");
  for (const QueryResult& qr : run.results) {
    std::printf("| %s | %.2f | %.0f | %s | %s |\n", qr.query.id.c_str(), qr.warm_other_cores,
                qr.warm_waited, cold ? Fixed(qr.cold_other_cores, 2).c_str() : "-",
                cold ? Fixed(qr.cold_waited, 0).c_str() : "-");
  }
}

json EnginesJson(const QueryResult& qr) {
  const EngineRuns& r1 = qr.runs.at(kGs1);
  json engines = json::object();
  for (const auto& [name, r] : qr.runs) {
    json e = {{"warm", SummaryJson(r.warm)}};
    if (!r.cold_query.empty()) {
      e["cold_fetch"] = SummaryJson(r.cold_query);
      e["cold_open"] = SummaryJson(r.cold_open);
      e["cold_open_plus_fetch"] = SummaryJson(r.cold_total);
    }
    if (qr.query.id == "Q5" && !r.warm.empty()) {
      e["warm_mb_per_s"] = static_cast<double>(r1.bytes_returned) / Median(r.warm) / 1e6;
    }
    engines[name] = e;
  }
  return engines;
}

json RatiosJson(const Run& run, const QueryResult& qr) {
  const EngineRuns& r1 = qr.runs.at(kGs1);
  json ratios = json::object();
  for (const std::string& nc : run.nc_names) {
    const EngineRuns& n = qr.runs.at(nc);
    json r = {{"warm_vs_1t", Median(n.warm) / Median(r1.warm)},
              {"warm_vs_2t", Median(n.warm) / Median(qr.runs.at(kGs2).warm)}};
    if (run.cold) {
      r["cold_fetch_vs_1t"] = Median(n.cold_query) / Median(r1.cold_query);
      r["cold_fetch_vs_2t"] = Median(n.cold_query) / Median(qr.runs.at(kGs2).cold_query);
      r["cold_open_plus_fetch_vs_1t"] = Median(n.cold_total) / Median(r1.cold_total);
      r["cold_open_plus_fetch_vs_2t"] = Median(n.cold_total) / Median(qr.runs.at(kGs2).cold_total);
    }
    ratios[nc] = r;
  }
  return ratios;
}

json QueryJson(const Run& run, const QueryResult& qr) {
  json q = {{"id", qr.query.id},
            {"name", qr.query.name},
            {"box", qr.query.shape},
            {"all_variables", qr.query.all_variables}};
  const EngineRuns& r1 = qr.runs.at(kGs1);
  const double decoded = Median(r1.bytes_decoded);
  const double zstd_mb_s = run.speed.zstd_mb_s;
  q["gridstore"] = {{"blocks_median", Median(r1.blocks)},
                    {"bytes_decoded_median", decoded},
                    {"bytes_read_median", Median(r1.bytes_read)},
                    {"bytes_returned", r1.bytes_returned},
                    {"bound_1core_ms", zstd_mb_s > 0 ? decoded / (zstd_mb_s * 1e6) * 1e3 : 0.0}};
  q["engines"] = EnginesJson(qr);
  q["ratios_netcdf_over_gridstore"] = RatiosJson(run, qr);
  q["machine_load"] = {{"warm_other_cores", qr.warm_other_cores},
                       {"warm_waited_s", qr.warm_waited},
                       {"cold_other_cores", qr.cold_other_cores},
                       {"cold_waited_s", qr.cold_waited}};
  return q;
}

}  // namespace

Summary Summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {
    const size_t r = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(r, 1, v.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

nlohmann::json SummaryJson(const std::vector<double>& seconds) {
  const Summary s = Summarize(seconds);
  std::vector<double> ms;
  for (double x : seconds) ms.push_back(std::round(x * 1e7) / 1e4);  // ms, 0.1 us resolution
  return {{"n", s.n},
          {"p50_ms", s.p50 * 1e3},
          {"p99_ms", s.p99 * 1e3},
          {"mean_ms", s.mean * 1e3},
          {"samples_ms", ms}};
}

double Median(std::vector<double> v) { return Summarize(std::move(v)).p50; }

std::string Ms(double seconds) {
  const double ms = seconds * 1e3;
  char buf[32];
  if (ms < 0.1) {
    std::snprintf(buf, sizeof buf, "%.4f", ms);
  } else if (ms < 1) {
    std::snprintf(buf, sizeof buf, "%.3f", ms);
  } else if (ms < 10) {
    std::snprintf(buf, sizeof buf, "%.2f", ms);
  } else if (ms < 100) {
    std::snprintf(buf, sizeof buf, "%.1f", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", ms);
  }
  return buf;
}

std::string Ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 10 ? "%.2fx" : "%.1fx", r);
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Thousands(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

void PrintReport(const Run& run) {
  PrintHeader(run);
  PrintFormats(run.data);
  PrintMethod(run);
  PrintTimingTable(run, "Warm (GridStore block cache off)", &EngineRuns::warm);
  if (run.cold) {
    PrintTimingTable(run, "Cold, fetch after a fresh open", &EngineRuns::cold_query);
    PrintTimingTable(run, "Cold, open + fetch", &EngineRuns::cold_total);
    PrintColdOpen(run);
  }
  PrintDecodingWork(run);
  PrintThroughput(run);
  PrintLoad(run);
  std::printf("\nTotal run time %.0f s.\n", Since(run.started));
}

json FormatsJson(const DataSet& d) {
  const double raw = static_cast<double>(d.raw_bytes);
  json formats = json::array();
  for (const Format& f : d.formats) {
    formats.push_back({{"name", f.name},
                       {"description", f.description},
                       {"bytes", f.bytes},
                       {"ratio", raw / static_cast<double>(f.bytes)}});
    if (f.block_bytes > 0) formats.back()["block_bytes"] = f.block_bytes;
  }
  return formats;
}

json QueriesJson(const Run& run) {
  json queries = json::array();
  for (const QueryResult& qr : run.results) queries.push_back(QueryJson(run, qr));
  return queries;
}

}  // namespace gridstore::bench::fetch
