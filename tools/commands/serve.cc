// Copyright 2026 The GridStore Authors.
//
// `gridstore serve [--listen HOST:PORT] [--token-file FILE] [--max-response-mb N]
// [--max-inflight N] [--cors ORIGIN] [--trusted-proxy ADDR]... [--refresh-seconds S]
// [--expensive-threads N] [--map-cache-mb N]`: the store over HTTP, read-only: OGC API-EDR, the
// catalog, quick-look maps and the viewer (gridstore/server/, docs/serve.md).
#include <arpa/inet.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "gridstore/features.h"
#if GRIDSTORE_HAVE_SERVER
#include "gridstore/server/edr_service.h"
#include "gridstore/server/http_server.h"
#include "gridstore/server/store_source.h"
#endif
#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/util/internal/strings.h"
#include "tools/commands/command.h"

namespace gridstore::tools {
namespace {

struct ServeArgs {
  std::string listen = "127.0.0.1:8080";
  std::optional<std::string> token_file;
  double max_response_mb = 20;
  double map_cache_mb = 256;  // decoded planes kept for tiles and maps
  int max_inflight = 64;
  std::string cors;
  std::vector<std::string> trusted_proxies;
  std::optional<double> refresh_seconds;  // default: 2, or 0 on a rados:// store
  // Workers of the lane for areas and maps; 0: one lane shared by every request.
  int expensive_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
};

// "HOST:PORT" or "[IPv6]:PORT".
#if GRIDSTORE_HAVE_SERVER
Status ParseListen(const std::string& text, server::HttpServerOptions* options) {
  const size_t colon = text.rfind(':');
  std::string host = colon == std::string::npos ? "" : text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = colon == std::string::npos ? "" : text.substr(colon + 1);
  int value = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (host.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return Status::InvalidArgument("--listen " + Quote(text) +
                                   " is not HOST:PORT (e.g. 127.0.0.1:8080; port 0 picks a free "
                                   "one)");
  }
  options->host = host;
  options->port = static_cast<uint16_t>(value);
  return Status::OK();
}

// The URI a server opens: on RADOS, with the catalog replica (docs/design/catalog.md) unless the
// URI chooses (catalog_replica=0|1). A server answers many queries over one open, which is what
// the replica's load pays for.
std::string ServeUri(const std::string& uri) {
  if (!storage::IsDistributedUri(uri) || uri.find("?catalog_replica=") != std::string::npos ||
      uri.find("&catalog_replica=") != std::string::npos) {
    return uri;
  }
  return uri + (uri.find('?') == std::string::npos ? "?" : "&") + "catalog_replica=1";
}

Status RunServe(const CommandContext& context, const ServeArgs& args) {
  // Answers of a few MiB to tens of MiB (a 40-year series is 14 MB of CoverageJSON) are built in
  // one string and freed once sent: with glibc's defaults the next answer faulted in and zeroed
  // every page again, a third of its time (answers alternated between 55 and 210 ms).
  KeepFreedBuffersInTheHeap();
  server::HttpServerOptions http;
  GRIDSTORE_RETURN_IF_ERROR(ParseListen(args.listen, &http));
  if (!(args.max_response_mb > 0) || args.max_response_mb > 1e6) {
    return Status::InvalidArgument("--max-response-mb " + FormatDouble(args.max_response_mb) +
                                   " is not a positive size up to 1000000");
  }
  if (!(args.map_cache_mb >= 0) || args.map_cache_mb > 1e6) {
    return Status::InvalidArgument("--map-cache-mb " + FormatDouble(args.map_cache_mb) +
                                   " is not a size from 0 to 1000000");
  }
  if (args.max_inflight < 1) {
    return Status::InvalidArgument("--max-inflight " + std::to_string(args.max_inflight) +
                                   " must be at least 1");
  }
  // A RADOS store is read through a catalog replica kept fresh by the cluster's notifications
  // (docs/design/catalog.md): no reopening needed, and a reopen would load the replica again.
  const bool distributed = storage::IsDistributedUri(context.store());
  const double refresh_seconds = args.refresh_seconds.value_or(distributed ? 0 : 2);
  if (!(refresh_seconds >= 0) || refresh_seconds > 86400) {
    return Status::InvalidArgument("--refresh-seconds " + FormatDouble(refresh_seconds) +
                                   " is not a number of seconds from 0 to 86400");
  }
  if (args.expensive_threads < 0 || args.expensive_threads > 1024) {
    return Status::InvalidArgument("--expensive-threads " + std::to_string(args.expensive_threads) +
                                   " is not a number of threads from 0 to 1024");
  }
  http.max_inflight = args.max_inflight;
  http.cors_origin = args.cors;
  for (const std::string& proxy : args.trusted_proxies) {
    unsigned char address[sizeof(in6_addr)];
    if (inet_pton(AF_INET, proxy.c_str(), address) != 1 &&
        inet_pton(AF_INET6, proxy.c_str(), address) != 1) {
      return Status::InvalidArgument("--trusted-proxy " + Quote(proxy) +
                                     " is not an IP address (e.g. 127.0.0.1 or ::1)");
    }
  }
  http.trusted_proxies = args.trusted_proxies;
  server::ServiceOptions service;
  service.max_response_bytes = static_cast<int64_t>(args.max_response_mb * 1024 * 1024);
  service.map_cache_bytes = static_cast<int64_t>(args.map_cache_mb * 1024 * 1024);
  if (args.token_file) {
    GRIDSTORE_ASSIGN_OR_RETURN(service.tokens, server::ReadTokenFile(*args.token_file));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::unique_ptr<server::StoreSource> source,
      server::StoreSource::Open(
          ServeUri(context.store()),
          std::chrono::milliseconds(static_cast<int64_t>(refresh_seconds * 1000))));
  server::EdrService edr(source.get(), std::move(service));
  // Heavy queries run on a lane of their own (by default half the cores): a burst of maps and
  // areas leaves the other half to point queries (issue 29, 4.6; docs/benchmarks.md compares it
  // with one shared lane, --expensive-threads 0).
  if (args.expensive_threads > 0) {
    http.is_expensive = &server::EdrService::IsExpensive;
    http.expensive_threads = args.expensive_threads;
  }
  Result<std::unique_ptr<server::HttpServer>> listener = server::HttpServer::Listen(
      http, [&edr](const server::HttpRequest& request) { return edr.Handle(request); });
  if (!listener.ok()) {  // say which option: the transport names only the address
    return Status(listener.status().code(), "--listen " + Quote(args.listen) + ": " +
                                                std::string(listener.status().message()));
  }
  const bool v6 = http.host.find(':') != std::string::npos;
  std::fprintf(stderr, "gridstore serve: listening on http://%s%s%s:%u (store %s)\n", v6 ? "[" : "",
               http.host.c_str(), v6 ? "]" : "", unsigned((*listener)->port()),
               context.store().c_str());
  (*listener)->Run();
  return Status::OK();
}
#else
Status RunServe(const CommandContext&, const ServeArgs&) {
  return Status::Unimplemented(std::string("gridstore serve: ") + kEnableServer);
}
#endif  // GRIDSTORE_HAVE_SERVER

}  // namespace

Command RegisterServe(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* app = parent.add_subcommand(
      "serve",
      "Serve the store over HTTP, read-only: OGC API-EDR queries, a catalog search, quick-look "
      "maps and a viewer at /viewer");
  app->add_option("--listen", args->listen, "Address to listen on (default 127.0.0.1:8080)")
      ->type_name("HOST:PORT");
  AddOptionalString(app, "--token-file", &args->token_file,
                    "Require 'Authorization: Bearer TOKEN' with a token from FILE (one per line)")
      ->type_name("FILE");
  app->add_option("--max-response-mb", args->max_response_mb,
                  "Refuse responses over N MiB with 413 (default 20)")
      ->type_name("N");
  app->add_option("--map-cache-mb", args->map_cache_mb,
                  "Keep up to N MiB of decoded planes for map tiles, maps and legends "
                  "(default 256)")
      ->type_name("N");
  app->add_option("--max-inflight", args->max_inflight,
                  "Answer 503 (Retry-After) beyond N requests at once (default 64)")
      ->type_name("N");
  app->add_option("--trusted-proxy", args->trusted_proxies,
                  "A reverse proxy's address (repeat for several) whose X-Forwarded-Proto/Host/"
                  "Prefix headers make the links; from other clients they are ignored")
      ->type_name("ADDR");
  app->add_option("--cors", args->cors, "Allow browser pages from ORIGIN (CORS)")
      ->type_name("ORIGIN");
  app->add_option("--refresh-seconds", args->refresh_seconds,
                  "Reopen the store this often to see other processes' imports and deletes "
                  "(default 2; 0 never, the default on a rados:// store, whose catalog replica "
                  "the cluster keeps fresh)")
      ->type_name("S");
  app->add_option("--expensive-threads", args->expensive_threads,
                  "Threads for areas and maps, apart from the point queries' (default half the "
                  "cores; 0: one lane for every request)")
      ->type_name("N");
  return {app, Done([&context, args] { return RunServe(context, *args); })};
}

}  // namespace gridstore::tools
