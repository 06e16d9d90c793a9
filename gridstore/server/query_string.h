// Copyright 2026 The GridStore Authors.
//
// Request targets: "/collections/ecmwf%2Frun/position?coords=POINT(120%2030)&f=CoverageJSON" into
// decoded path segments and query parameters. Strict, because everything in it comes from the
// network: a malformed escape, a NUL byte, a repeated parameter or an over-long target is an
// InvalidArgument naming it, never a guess.
#ifndef GRIDSTORE_SERVER_QUERY_STRING_H_
#define GRIDSTORE_SERVER_QUERY_STRING_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::server {

// Decodes %XX escapes (and '+' as a space when `plus_is_space`, as in query strings).
// InvalidArgument for a '%' not followed by two hex digits and for an escaped NUL byte.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space);
// Escapes every byte outside RFC 3986's unreserved set (so '/' in an id becomes %2F).
std::string PercentEncode(std::string_view text);

struct RequestTarget {
  std::vector<std::string> path;                          // decoded segments, no empty ones
  std::map<std::string, std::string, std::less<>> query;  // decoded name -> value
  bool trailing_slash = false;
};

// Parses an origin-form target ("/a/b?x=1"). Segments are split before decoding, so "%2F" stays
// inside its segment. Parameter names are matched as sent (EDR's are lower case).
Result<RequestTarget> ParseTarget(std::string_view target);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_QUERY_STRING_H_
