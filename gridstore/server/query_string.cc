// Copyright 2026 The GridStore Authors.
#include "gridstore/server/query_string.h"

#include "gridstore/util/internal/strings.h"

namespace gridstore::server {

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  if (!gridstore::PercentDecode(text, plus_is_space, &out)) {
    return Status::InvalidArgument("bad percent-encoding in " + Quote(text) +
                                   " (a '%' must be followed by two hex digits)");
  }
  // Raw or escaped: a NUL byte ends C strings further down and is never meant.
  if (out.find('\0') != std::string::npos) {
    return Status::InvalidArgument("a NUL byte (%00) in " + Quote(text));
  }
  return out;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '-' ||
        u == '.' || u == '_' || u == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

Result<RequestTarget> ParseTarget(std::string_view target) {
  if (target.empty() || target[0] != '/') {
    return Status::InvalidArgument("the request target " + Quote(target) +
                                   " does not start with '/'");
  }
  RequestTarget out;
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  out.trailing_slash = path.size() > 1 && path.back() == '/';
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string segment,
                                 PercentDecode(path.substr(start, end - start), false));
      out.path.push_back(std::move(segment));
    }
    start = end + 1;
  }
  if (q == std::string_view::npos) return out;
  std::string_view query = target.substr(q + 1);
  const size_t fragment = query.find('#');
  if (fragment != std::string_view::npos) query = query.substr(0, fragment);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    GRIDSTORE_ASSIGN_OR_RETURN(std::string name, PercentDecode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      GRIDSTORE_ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1), true));
    }
    if (name.empty()) {
      return Status::InvalidArgument("a query parameter without a name: " + Quote(pair));
    }
    if (!out.query.emplace(name, std::move(value)).second) {
      return Status::InvalidArgument("query parameter " + Quote(name) + " is given more than once");
    }
  }
  return out;
}

}  // namespace gridstore::server
