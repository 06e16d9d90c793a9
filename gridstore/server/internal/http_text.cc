// Copyright 2026 The GridStore Authors.
#include "gridstore/server/internal/http_text.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace gridstore::server {

std::string JsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(u));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

HttpResponse TransportError(int status, std::string_view code, std::string_view description) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body =
      "{\"code\":\"" + JsonEscape(code) + "\",\"description\":\"" + JsonEscape(description) + "\"}";
  return r;
}

std::string SanitizeForLog(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned>(u));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string LogTimestamp() {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%02d/%s/%04d:%02d:%02d:%02d +0000", tm.tm_mday,
                kMonths[std::clamp(tm.tm_mon, 0, 11)], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

}  // namespace gridstore::server
