// Copyright 2026 The GridStore Authors.
//
// An HTTP request and response as the service sees them: plain values, so that everything above
// the transport (routing, the EDR queries, the catalog, the map) is testable without a socket and
// only http_server.cc includes the HTTP library.
#ifndef GRIDSTORE_SERVER_HTTP_MESSAGE_H_
#define GRIDSTORE_SERVER_HTTP_MESSAGE_H_

#include <string>
#include <utility>
#include <vector>

namespace gridstore::server {

struct HttpRequest {
  std::string method;         // "GET", "HEAD", ...
  std::string target;         // the request target as sent: path and query, still percent-encoded
  std::string authorization;  // the Authorization header, or ""
  // Where the client reached us, for absolute links: the Host header, and a reverse proxy's
  // X-Forwarded-Proto / X-Forwarded-Host / X-Forwarded-Prefix (docs/serve.md).
  std::string host;
  std::string forwarded_proto, forwarded_host, forwarded_prefix;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type and -Length
};

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_HTTP_MESSAGE_H_
