// Copyright 2026 The GridStore Authors.
//
// The same work behind every candidate HTTP library (bench/http_choice.sh): a response body about
// the size of a point's CoverageJSON time series (2 KiB), built per request from the query.
#ifndef GRIDSTORE_BENCH_HTTP_CHOICE_COMMON_H_
#define GRIDSTORE_BENCH_HTTP_CHOICE_COMMON_H_

#include <cstdio>
#include <string>

inline std::string Body(const std::string& query) {
  std::string body = "{\"type\":\"Coverage\",\"query\":\"" + query + "\",\"values\":[";
  for (int i = 0; i < 72; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%s%.4f", i ? "," : "", 280.0 + i * 0.137);
    body += buf;
  }
  return body + "]}";
}

#endif  // GRIDSTORE_BENCH_HTTP_CHOICE_COMMON_H_
