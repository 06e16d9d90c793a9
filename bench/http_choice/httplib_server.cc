// Copyright 2026 The GridStore Authors.
// cpp-httplib (header-only; Debian libcpp-httplib-dev): a blocking server with a thread pool.
#include <httplib.h>

#include <cstdlib>

#include "common.h"

int main(int argc, char** argv) {
  httplib::Server server;
  server.new_task_queue = [] {
    return new httplib::ThreadPool(std::getenv("THREADS") ? std::atoi(std::getenv("THREADS")) : 8);
  };
  server.Get("/position", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(Body(req.get_param_value("coords")), "application/prs.coverage+json");
  });
  server.listen("127.0.0.1", argc > 1 ? std::atoi(argv[1]) : 18081);
  return 0;
}
