// Copyright 2026 The GridStore Authors.
//
// The HTTP transport on a real loopback socket: keep-alive, the decoded request fields, HEAD, the
// limits (414, 431, 503, read timeout), handler failures, CORS, the access log and graceful
// shutdown. The client is a small blocking one on POSIX sockets, so that a test can send half a
// request or stall.
#include "gridstore/server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "tests/server/http_client_testutil.h"

namespace gridstore::server {
namespace {

using std::chrono::steady_clock;

using testing::Client;
using testing::ClientResponse;

std::string Get(const std::string& target, const std::string& more_headers = "",
                const std::string& method = "GET") {
  return method + " " + target + " HTTP/1.1\r\nHost: test.example\r\n" + more_headers + "\r\n";
}

HttpServerOptions TestOptions() {
  HttpServerOptions options;
  options.port = 0;
  options.io_threads = 2;
  options.worker_threads = 2;
  options.handle_signals = false;
  options.access_log = false;
  return options;
}

HttpResponse Echo(const HttpRequest& request) {
  HttpResponse r;
  r.content_type = "text/plain";
  r.body = "target=" + request.target;
  r.headers.emplace_back("X-Test", "yes");
  return r;
}

// A server running on its own thread for the length of a test.
class TestServer {
 public:
  TestServer(const HttpServerOptions& options, HttpHandler handler) {
    auto server = HttpServer::Listen(options, std::move(handler));
    if (!server.ok()) throw std::runtime_error(server.status().ToString());
    server_ = std::move(server).value();
    thread_ = std::thread([this] { server_->Run(); });
  }
  ~TestServer() { Stop(); }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  uint16_t port() const { return server_->port(); }
  HttpServer& server() { return *server_; }
  // Shuts down and waits for Run to return.
  void Stop() {
    if (!thread_.joinable()) return;
    server_->Shutdown();
    thread_.join();
  }
  bool running() const { return thread_.joinable(); }

 private:
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

// Holds handlers until released, and tells the test how many have entered.
class Gate {
 public:
  HttpResponse Pass(const HttpRequest& request) {
    std::unique_lock<std::mutex> lock(mu_);
    ++entered_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return released_; });
    return Echo(request);
  }
  void WaitEntered(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return entered_ >= n; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool released_ = false;
};

// Waits (at most 5 s) until the port refuses connections: the acceptor has been closed.
bool WaitUntilRefused(uint16_t port) {
  const auto give_up = steady_clock::now() + std::chrono::seconds(5);
  while (steady_clock::now() < give_up) {
    if (!Client(port).connected()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  TestServer server(TestOptions(), Echo);
  Client client(server.port());
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 3; ++i) {
    const std::string target = "/collections?i=" + std::to_string(i);
    ASSERT_TRUE(client.Send(Get(target)));
    auto r = client.Read();
    ASSERT_TRUE(r.has_value()) << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "target=" + target);
    EXPECT_EQ(r->header("content-type"), "text/plain");
    EXPECT_EQ(r->header("content-length"), std::to_string(r->body.size()));
    EXPECT_EQ(r->header("server"), "gridstore");
    EXPECT_EQ(r->header("x-test"), "yes");
    EXPECT_EQ(r->header("connection"), "");
    EXPECT_EQ(r->header("access-control-allow-origin"), "");
  }
  // Two pipelined requests in one write are answered in order.
  ASSERT_TRUE(client.Send(Get("/a") + Get("/b")));
  EXPECT_EQ(client.Read().value_or(ClientResponse{}).body, "target=/a");
  EXPECT_EQ(client.Read().value_or(ClientResponse{}).body, "target=/b");
}

TEST(HttpServerTest, HandlerSeesDecodedFields) {
  std::mutex mu;
  HttpRequest seen;
  HttpServerOptions options = TestOptions();
  options.trusted_proxies = {"127.0.0.1"};  // the test's client is the proxy
  TestServer server(options, [&](const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen = request;
    return HttpResponse{};
  });
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/edr/collections/t2m/position?coords=POINT(1%202)",
                              "Authorization: Bearer abc\r\nX-Forwarded-Proto: https\r\n"
                              "x-forwarded-host: maps.example.org\r\n"
                              "X-Forwarded-Prefix: /gridstore\r\n")));
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.target, "/edr/collections/t2m/position?coords=POINT(1%202)");
  EXPECT_EQ(seen.host, "test.example");
  EXPECT_EQ(seen.authorization, "Bearer abc");
  EXPECT_EQ(seen.forwarded_proto, "https");
  EXPECT_EQ(seen.forwarded_host, "maps.example.org");
  EXPECT_EQ(seen.forwarded_prefix, "/gridstore");
}

// Issue 29, 4.5: X-Forwarded-* from a client that is no trusted proxy used to make the links
// (X-Forwarded-Proto: javascript made javascript:// links): they are dropped.
TEST(HttpServerTest, Issue29ForwardedHeadersOnlyFromATrustedProxy) {
  std::mutex mu;
  HttpRequest seen;
  TestServer server(TestOptions(), [&](const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu);
    seen = request;
    return HttpResponse{};
  });
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/",
                              "X-Forwarded-Proto: javascript\r\n"
                              "X-Forwarded-Host: evil.example\r\n")));
  ASSERT_TRUE(client.Read().has_value());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen.forwarded_proto, "");
  EXPECT_EQ(seen.forwarded_host, "");
}

TEST(HttpServerTest, HeadSendsTheLengthButNoBody) {
  TestServer server(TestOptions(), Echo);
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/x", "", "HEAD")));
  auto head = client.Read(/*head=*/true);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-length"), std::to_string(std::string("target=/x").size()));
  // Had a body followed, it would be read here as the next response's start.
  ASSERT_TRUE(client.Send(Get("/y")));
  auto get = client.Read();
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "target=/y");
}

TEST(HttpServerTest, TargetOverTheLimitGets414) {
  HttpServerOptions options = TestOptions();
  options.max_target_bytes = 100;
  std::atomic<int> calls{0};
  TestServer server(options, [&](const HttpRequest& request) {
    ++calls;
    return Echo(request);
  });
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/" + std::string(150, 'a'))));
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 414);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(nlohmann::json::parse(r->body)["code"], "URITooLong");
  // The connection stays usable; a target at the limit passes.
  ASSERT_TRUE(client.Send(Get("/" + std::string(99, 'a'))));
  auto ok = client.Read();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServerTest, HeadersOverTheLimitGet431) {
  HttpServerOptions options = TestOptions();
  options.max_header_bytes = 1024;
  TestServer server(options, Echo);
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/", "X-Big: " + std::string(4000, 'b') + "\r\n")));
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 431);
  EXPECT_EQ(r->header("connection"), "close");
  const auto body = nlohmann::json::parse(r->body);
  EXPECT_EQ(body["code"], "RequestHeaderFieldsTooLarge");
  EXPECT_TRUE(body["description"].is_string());
  EXPECT_TRUE(client.ServerClosed());
}

TEST(HttpServerTest, OverMaxInflightGets503WithRetryAfter) {
  HttpServerOptions options = TestOptions();
  options.max_inflight = 1;
  Gate gate;
  TestServer server(options, [&](const HttpRequest& request) { return gate.Pass(request); });
  Client first(server.port());
  ASSERT_TRUE(first.Send(Get("/slow")));
  gate.WaitEntered(1);
  Client second(server.port());
  ASSERT_TRUE(second.Send(Get("/fast")));
  auto busy = second.Read();
  ASSERT_TRUE(busy.has_value());
  EXPECT_EQ(busy->status, 503);
  EXPECT_EQ(busy->header("retry-after"), "1");
  EXPECT_EQ(nlohmann::json::parse(busy->body)["code"], "ServiceUnavailable");
  gate.Release();
  auto slow = first.Read();
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->status, 200);
  EXPECT_EQ(slow->body, "target=/slow");
  // The slot is free again.
  ASSERT_TRUE(second.Send(Get("/again")));
  auto again = second.Read();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);
}

TEST(HttpServerTest, HandlerExceptionGives500Json) {
  TestServer server(TestOptions(), [](const HttpRequest&) -> HttpResponse {
    throw std::runtime_error("broken \"store\"\nline two");
  });
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/boom")));
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->header("content-type"), "application/json");
  const auto body = nlohmann::json::parse(r->body);  // throws (fails) if badly escaped
  EXPECT_EQ(body["code"], "ServerError");
  EXPECT_NE(body["description"].get<std::string>().find("broken \"store\"\nline two"),
            std::string::npos);
  // The connection survives the failure.
  ASSERT_TRUE(client.Send(Get("/boom")));
  EXPECT_EQ(client.Read().value_or(ClientResponse{}).status, 500);
}

TEST(HttpServerTest, CorsHeadersWhenConfigured) {
  HttpServerOptions options = TestOptions();
  options.cors_origin = "*";
  TestServer server(options, Echo);
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/")));
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header("access-control-allow-origin"), "*");
  EXPECT_EQ(r->header("vary"), "Origin");
}

TEST(HttpServerTest, ShutdownLetsTheInFlightRequestFinish) {
  Gate gate;
  TestServer server(TestOptions(), [&](const HttpRequest& request) { return gate.Pass(request); });
  Client client(server.port());
  ASSERT_TRUE(client.Send(Get("/slow")));
  gate.WaitEntered(1);
  server.server().Shutdown();
  EXPECT_TRUE(WaitUntilRefused(server.port()));  // no longer accepting
  gate.Release();
  auto r = client.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "target=/slow");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client.ServerClosed());
  const auto start = steady_clock::now();
  server.Stop();  // Run returns
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(HttpServerTest, IdleConnectionsDoNotHoldUpShutdown) {
  TestServer server(TestOptions(), Echo);
  Client used(server.port());  // idle after one request
  ASSERT_TRUE(used.Send(Get("/")));
  ASSERT_TRUE(used.Read().has_value());
  Client silent(server.port());  // never sends anything
  ASSERT_TRUE(silent.connected());
  const auto start = steady_clock::now();
  server.Stop();
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));  // the hard deadline is 10 s
  EXPECT_TRUE(used.ServerClosed());
  EXPECT_TRUE(silent.ServerClosed());
}

TEST(HttpServerTest, ShutdownBeforeRunReturnsPromptly) {
  auto server = HttpServer::Listen(TestOptions(), Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  (*server)->Shutdown();
  (*server)->Run();
}

TEST(HttpServerTest, PortInUseIsUnavailable) {
  auto first = HttpServer::Listen(TestOptions(), Echo);
  ASSERT_TRUE(first.ok()) << first.status();
  HttpServerOptions options = TestOptions();
  options.port = (*first)->port();
  EXPECT_NE(options.port, 0);
  auto second = HttpServer::Listen(options, Echo);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsUnavailable()) << second.status();
  EXPECT_NE(second.status().message().find("127.0.0.1:" + std::to_string(options.port)),
            std::string::npos)
      << second.status();
}

TEST(HttpServerTest, BadHostIsInvalidArgument) {
  HttpServerOptions options = TestOptions();
  options.host = "not-a-host";
  auto server = HttpServer::Listen(options, Echo);
  ASSERT_FALSE(server.ok());
  EXPECT_TRUE(server.status().IsInvalidArgument()) << server.status();
  EXPECT_NE(server.status().message().find("not an IP address"), std::string::npos);
}

TEST(HttpServerTest, StalledClientIsCutOffAfterTheReadTimeout) {
  HttpServerOptions options = TestOptions();
  options.read_timeout = std::chrono::seconds(1);
  TestServer server(options, Echo);
  Client client(server.port());
  const auto start = steady_clock::now();
  ASSERT_TRUE(client.Send("GET /half HTTP/1.1\r\nHost: test\r\n"));  // no blank line: stalls
  EXPECT_TRUE(client.ServerClosed());
  const auto elapsed = steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(900));
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(HttpServerTest, AccessLogLineIsCommonLogFormatAndSanitized) {
  HttpServerOptions options = TestOptions();
  options.access_log = true;
  ::testing::internal::CaptureStderr();
  {
    TestServer server(options, [](const HttpRequest&) {
      HttpResponse r;
      r.body = "hello";
      return r;
    });
    Client client(server.port());
    ASSERT_TRUE(client.Send(Get("/log\"x")));
    ASSERT_TRUE(client.Read().has_value());
    server.Stop();  // the line is written once the response is; Run has returned after that
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  // 127.0.0.1 - - [25/Nov/2026:14:36:10 +0000] "GET /log\"x HTTP/1.1" 200 5 0.8ms
  ASSERT_EQ(log.rfind("127.0.0.1 - - [", 0), 0u) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
  const size_t bracket = log.find("] ");
  ASSERT_NE(bracket, std::string::npos) << log;
  const std::string stamp = log.substr(15, bracket - 15);
  int day, year, hour, minute, second;
  char month[4];
  EXPECT_EQ(std::sscanf(stamp.c_str(), "%2d/%3[A-Za-z]/%4d:%2d:%2d:%2d", &day, month, &year, &hour,
                        &minute, &second),
            6)
      << stamp;
  EXPECT_EQ(stamp.size(), 26u) << stamp;
  EXPECT_EQ(stamp.substr(20), " +0000") << stamp;
  const std::string rest = log.substr(bracket + 2);
  const std::string request = "\"GET /log\\\"x HTTP/1.1\" 200 5 ";
  EXPECT_EQ(rest.substr(0, request.size()), request) << log;
  EXPECT_TRUE(rest.ends_with("ms\n")) << log;
}

}  // namespace
}  // namespace gridstore::server
