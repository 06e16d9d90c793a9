// Copyright 2026 The GridStore Authors.
// libmicrohttpd (Debian libmicrohttpd-dev): epoll, one thread per core.
#include <microhttpd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common.h"

static MHD_Result Handle(void*, MHD_Connection* connection, const char* url, const char*,
                         const char*, const char*, size_t*, void**) {
  if (std::strcmp(url, "/position") != 0) return MHD_NO;
  const char* coords = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "coords");
  const std::string body = Body(coords ? coords : "");
  MHD_Response* response = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(response, "Content-Type", "application/prs.coverage+json");
  const MHD_Result r = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return r;
}

int main(int argc, char** argv) {
  const uint16_t port = static_cast<uint16_t>(argc > 1 ? std::atoi(argv[1]) : 18082);
  MHD_Daemon* d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, port, nullptr,
                                   nullptr, &Handle, nullptr, MHD_OPTION_THREAD_POOL_SIZE, 2u,
                                   MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_END);
  if (d == nullptr) return 1;
  pause();
  MHD_stop_daemon(d);
  return 0;
}
