// Copyright 2026 The GridStore Authors.
//
// The HTTP/1.1 transport of `gridstore serve` (Boost.Beast; docs/design/service.md says why), the
// only code that includes the HTTP library. Network I/O runs on a few threads; each request is
// answered by `handler` on a worker pool, so that a slow extraction never stalls the sockets.
// Limits: header and target size (431 / 414), concurrent requests (503 with Retry-After beyond
// max_inflight, counted over queued and running), a read deadline per request (slow clients are
// cut off). Every response gets an access-log line on stderr in Common Log Format plus the
// duration. Shutdown (SIGTERM, SIGINT or Shutdown()) stops accepting, lets in-flight requests
// finish and closes idle connections.
#ifndef GRIDSTORE_SERVER_HTTP_SERVER_H_
#define GRIDSTORE_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridstore/server/http_message.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0: any free port (see HttpServer::port)
  int io_threads = 2;
  int worker_threads = 0;  // 0: the number of cores, at least 2
  int max_inflight = 64;
  // Requests `is_expensive` says are (areas, maps: the handler's own judgement) run on
  // `expensive_threads` workers of their own, the rest on `worker_threads`: a burst of heavy
  // requests queues behind itself, never in front of a point query.
  std::function<bool(const HttpRequest&)> is_expensive;
  int expensive_threads = 1;
  size_t max_header_bytes = 16 * 1024;  // request line and headers together
  size_t max_target_bytes = 8 * 1024;
  std::chrono::seconds read_timeout{30};  // to receive a whole request
  std::string cors_origin;                // "" none; else Access-Control-Allow-Origin
  // Addresses of reverse proxies whose X-Forwarded-Proto/Host/Prefix are believed; from any
  // other client they are dropped (a client could make the links point anywhere otherwise).
  std::vector<std::string> trusted_proxies;
  bool access_log = true;
  bool handle_signals = true;  // SIGTERM / SIGINT shut down gracefully
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  // Binds and listens. InvalidArgument for a host that is not an address; Unavailable naming
  // HOST:PORT if it cannot be bound (in use, no permission).
  static Result<std::unique_ptr<HttpServer>> Listen(const HttpServerOptions& options,
                                                    HttpHandler handler);
  virtual ~HttpServer() = default;

  virtual uint16_t port() const = 0;
  // Serves until shut down; returns once every in-flight request has been answered.
  virtual void Run() = 0;
  // Thread-safe; Run returns soon after.
  virtual void Shutdown() = 0;
};

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_HTTP_SERVER_H_
