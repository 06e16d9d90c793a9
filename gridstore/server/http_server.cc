// Copyright 2026 The GridStore Authors.
//
// HttpServer on Boost.Beast and Boost.Asio. An io_context run by `io_threads` threads accepts
// connections and runs one Session per connection on its own strand; each parsed request is
// handed to a worker pool (boost::asio::thread_pool) that calls the handler, and the response is
// written back on the session's strand. Shutdown closes the acceptor and every idle connection;
// busy ones answer their request with "Connection: close". Run returns when no work is left (or
// 10 s after shutdown began, by force).
#include "gridstore/server/http_server.h"

// Before any Boost header: some of Boost 1.74's Asio headers use std::exchange without it.
// clang-format off
#include <utility>
// clang-format on

#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
// GCC warns that ThreadSanitizer does not model the atomic_thread_fence in Asio's fenced blocks
// (-Wtsan, an error with -Werror). Asio hands handlers between threads under mutexes, which TSan
// does see; the fences only double that.
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <exception>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gridstore/server/internal/http_text.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/status.h"

namespace gridstore::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Response = http::response<http::string_body>;

constexpr uint64_t kBodyLimit = 64 * 1024;  // the service is read-only: GET and HEAD
constexpr auto kShutdownDeadline = std::chrono::seconds(10);
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(50);

std::string Str(beast::string_view s) { return std::string(s.data(), s.size()); }

bool IsHttpParseError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::header_limit).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

// `proxy`: whether the peer is a trusted reverse proxy, whose X-Forwarded-* are believed.
HttpRequest ToHttpRequest(const http::request<http::string_body>& req, bool proxy) {
  HttpRequest r;
  r.method = Str(req.method_string());
  r.target = Str(req.target());
  r.authorization = Str(req[http::field::authorization]);
  r.host = Str(req[http::field::host]);
  if (proxy) {
    r.forwarded_proto = Str(req["X-Forwarded-Proto"]);
    r.forwarded_host = Str(req["X-Forwarded-Host"]);
    r.forwarded_prefix = Str(req["X-Forwarded-Prefix"]);
  }
  return r;
}

// One request and its response, as far as the transport needs to remember it.
struct Exchange {
  std::string request_line = "-";  // for the access log
  Clock::time_point start = Clock::now();
  unsigned version = 11;
  bool head = false;
  bool keep_alive = false;  // what the client asked for
  bool linger = false;      // the request was not parsed: drain its rest before closing
};

class ServerImpl;

// One connection. Every member is used on the session's strand only (workers get copies).
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, ServerImpl* server);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start();
  // Closes the connection if it is waiting for a request of which nothing has arrived.
  void StopIfIdle();

 private:
  enum class State { kReading, kBusy };

  void DoRead();
  void OnRead(beast::error_code ec, size_t bytes);
  void HandleRequest();
  void Reply(HttpResponse response, Exchange exchange);
  void Write(std::shared_ptr<Response> response, Exchange exchange);
  void OnWrite(const Exchange& exchange, beast::error_code ec, size_t bytes);
  void Linger();
  void Close();

  beast::tcp_stream stream_;
  const net::any_io_executor executor_;  // the session's strand
  ServerImpl* const server_;
  std::string remote_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<Response> response_;
  State state_ = State::kBusy;
};

class ServerImpl final : public HttpServer {
 public:
  ServerImpl(const HttpServerOptions& options, HttpHandler handler)
      : options_(options),
        handler_(std::move(handler)),
        ioc_(std::max(1, options.io_threads)),
        strand_(net::make_strand(ioc_)),
        acceptor_(strand_),
        retry_timer_(strand_),
        pool_(options.worker_threads > 0
                  ? options.worker_threads
                  : std::max(2, static_cast<int>(std::thread::hardware_concurrency()))),
        expensive_pool_(std::max(1, options.expensive_threads)) {}
  ~ServerImpl() override {
    pool_.stop();
    expensive_pool_.stop();
  }

  Status Open(const net::ip::address& address);
  uint16_t port() const override { return port_; }
  void Run() override;
  void Shutdown() override;

  // For sessions.
  const HttpServerOptions& options() const { return options_; }
  bool TrustsProxy(const std::string& address) const {
    return std::find(options_.trusted_proxies.begin(), options_.trusted_proxies.end(), address) !=
           options_.trusted_proxies.end();
  }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  net::io_context& ioc() { return ioc_; }
  net::thread_pool& pool() { return pool_; }
  // The lane of a request: expensive ones queue apart, so that cheap ones never wait behind
  // them (issue 29, 4.6).
  net::thread_pool& pool_for(const HttpRequest& request) {
    return options_.is_expensive && options_.is_expensive(request) ? expensive_pool_ : pool_;
  }
  // Counts a request as in flight (queued or running), unless max_inflight are already.
  bool TryAcquireSlot() {
    if (inflight_.fetch_add(1) < options_.max_inflight) return true;
    inflight_.fetch_sub(1);
    return false;
  }
  void ReleaseSlot() { inflight_.fetch_sub(1); }
  HttpResponse Invoke(const HttpRequest& request) const;
  std::shared_ptr<Response> MakeResponse(HttpResponse r, const Exchange& exchange) const;
  void LogAccess(const std::string& remote, const Exchange& exchange, unsigned status,
                 size_t bytes) const;
  void Register(const std::shared_ptr<Session>& session) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    sessions_[session.get()] = session;
  }
  void Unregister(Session* session) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    sessions_.erase(session);
  }

 private:
  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  void WaitForSignal();
  void BeginShutdown() EXCLUDES(mu_);  // on strand_
  void RunIo() EXCLUDES(mu_);
  void WaitForIo() EXCLUDES(mu_);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  Mutex mu_;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_ GUARDED_BY(mu_);
  std::optional<Clock::time_point> deadline_ GUARDED_BY(mu_);  // set once shutdown begins
  int io_running_ GUARDED_BY(mu_) = 0;
  CondVar cv_;  // io_running_ or deadline_ changed
  std::atomic<bool> stopping_{false};
  std::atomic<int> inflight_{0};
  uint16_t port_ = 0;
  // Declared in this order so that they are destroyed first to last: the pool (its queued tasks
  // hold sessions), then the I/O objects, then the io_context.
  net::io_context ioc_;
  net::strand<net::io_context::executor_type> strand_;  // acceptor, signals, shutdown
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;
  std::optional<net::signal_set> signals_;
  net::thread_pool pool_;
  net::thread_pool expensive_pool_;
};

// ---- Session ----

Session::Session(tcp::socket&& socket, ServerImpl* server)
    : stream_(std::move(socket)), executor_(stream_.get_executor()), server_(server) {
  beast::error_code ec;
  const tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
  remote_ = ec ? "-" : remote.address().to_string();
}

Session::~Session() { server_->Unregister(this); }

void Session::Start() {
  net::dispatch(executor_, beast::bind_front_handler(&Session::DoRead, shared_from_this()));
}

void Session::StopIfIdle() {
  net::post(executor_, [self = shared_from_this()] {
    if (self->state_ == State::kReading && self->buffer_.size() == 0 &&
        !(self->parser_ && self->parser_->got_some())) {
      self->Close();
    }
  });
}

void Session::DoRead() {
  if (server_->stopping()) return Close();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(
      std::min<size_t>(server_->options().max_header_bytes, UINT32_MAX)));
  parser_->body_limit(kBodyLimit);
  state_ = State::kReading;
  stream_.expires_after(server_->options().read_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&Session::OnRead, shared_from_this()));
}

void Session::OnRead(beast::error_code ec, size_t /*bytes*/) {
  state_ = State::kBusy;
  if (!ec) return HandleRequest();
  if (!IsHttpParseError(ec)) return Close();  // end of stream, timeout, reset, cancelled
  Exchange exchange;
  exchange.linger = true;
  if (ec == http::error::header_limit) {
    Reply(TransportError(431, "RequestHeaderFieldsTooLarge",
                         "the request line and headers exceed " +
                             std::to_string(server_->options().max_header_bytes) + " bytes"),
          std::move(exchange));
  } else if (ec == http::error::body_limit) {
    Reply(TransportError(413, "PayloadTooLarge",
                         "a request body over " + std::to_string(kBodyLimit) + " bytes"),
          std::move(exchange));
  } else {
    Reply(TransportError(400, "BadRequest", "malformed HTTP request: " + ec.message()),
          std::move(exchange));
  }
}

void Session::HandleRequest() {
  const http::request<http::string_body>& req = parser_->get();
  Exchange exchange;
  exchange.version = req.version();
  exchange.head = req.method() == http::verb::head;
  exchange.keep_alive = req.keep_alive();
  exchange.request_line = Str(req.method_string()) + " " + Str(req.target()) + " HTTP/" +
                          std::to_string(req.version() / 10) + "." +
                          std::to_string(req.version() % 10);
  const size_t max_target = server_->options().max_target_bytes;
  if (req.target().size() > max_target) {
    return Reply(
        TransportError(414, "URITooLong",
                       "the request target exceeds " + std::to_string(max_target) + " bytes"),
        std::move(exchange));
  }
  if (!server_->TryAcquireSlot()) {
    HttpResponse busy =
        TransportError(503, "ServiceUnavailable",
                       "too many requests in flight (at most " +
                           std::to_string(server_->options().max_inflight) + "); retry later");
    busy.headers.emplace_back("Retry-After", "1");
    return Reply(std::move(busy), std::move(exchange));
  }
  // The worker holds a work guard: the io_context must not run out of work while the handler
  // runs (the session has no I/O pending meanwhile).
  HttpRequest request = ToHttpRequest(req, server_->TrustsProxy(remote_));
  net::thread_pool& lane = server_->pool_for(request);
  net::post(lane, [self = shared_from_this(), request = std::move(request),
                   exchange = std::move(exchange),
                   work = net::make_work_guard(server_->ioc())]() mutable {
    std::shared_ptr<Response> response =
        self->server_->MakeResponse(self->server_->Invoke(request), exchange);
    self->server_->ReleaseSlot();
    net::post(self->executor_,
              [self, response = std::move(response), exchange = std::move(exchange)]() mutable {
                self->Write(std::move(response), std::move(exchange));
              });
    work.reset();
  });
}

void Session::Reply(HttpResponse response, Exchange exchange) {
  Write(server_->MakeResponse(std::move(response), exchange), std::move(exchange));
}

void Session::Write(std::shared_ptr<Response> response, Exchange exchange) {
  response_ = std::move(response);
  stream_.expires_after(server_->options().read_timeout);  // a client that does not read
  http::async_write(
      stream_, *response_,
      beast::bind_front_handler(&Session::OnWrite, shared_from_this(), std::move(exchange)));
}

void Session::OnWrite(const Exchange& exchange, beast::error_code ec, size_t /*bytes*/) {
  const bool keep_alive = response_->keep_alive();
  server_->LogAccess(remote_, exchange, response_->result_int(), response_->body().size());
  response_.reset();
  if (ec) return Close();
  if (exchange.linger) return Linger();
  if (!keep_alive) {
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    return;  // the last reference goes: the socket closes
  }
  DoRead();
}

// After an error response to a request that was not read to its end: half-close, then read and
// discard until the client closes (at most kLingerTime), so that closing with unread data does
// not reset the connection before the client has read the response.
void Session::Linger() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) return Close();
  stream_.expires_after(kLingerTime);
  buffer_.consume(buffer_.size());
  struct Drain {
    std::shared_ptr<Session> self;
    void operator()(beast::error_code error = {}, size_t /*bytes*/ = 0) {
      if (error) return self->Close();
      Session* s = self.get();
      s->buffer_.clear();
      s->stream_.async_read_some(s->buffer_.prepare(4096), std::move(*this));
    }
  };
  Drain{shared_from_this()}();
}

void Session::Close() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
}

// ---- ServerImpl ----

Status ServerImpl::Open(const net::ip::address& address) {
  const tcp::endpoint endpoint(address, options_.port);
  beast::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) port_ = acceptor_.local_endpoint(ec).port();
  if (ec) {
    const std::string host = address.is_v6() ? "[" + options_.host + "]" : options_.host;
    return Status::Unavailable("cannot listen on " + host + ":" + std::to_string(options_.port) +
                               ": " + ec.message());
  }
  Accept();
  if (options_.handle_signals) {
    signals_.emplace(strand_);
    signals_->add(SIGTERM, ec);
    signals_->add(SIGINT, ec);
    WaitForSignal();
  }
  return Status::OK();
}

void ServerImpl::Accept() {
  acceptor_.async_accept(net::make_strand(ioc_),
                         beast::bind_front_handler(&ServerImpl::OnAccept, this));
}

void ServerImpl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (stopping() || ec == net::error::operation_aborted) return;
  if (ec) {  // out of descriptors, say: try again shortly rather than spin
    retry_timer_.expires_after(kAcceptRetryDelay);
    retry_timer_.async_wait([this](beast::error_code error) {
      if (!error && !stopping()) Accept();
    });
    return;
  }
  auto session = std::make_shared<Session>(std::move(socket), this);
  Register(session);  // on strand_ like BeginShutdown: no session escapes it
  session->Start();
  Accept();
}

void ServerImpl::WaitForSignal() {
  signals_->async_wait([this](beast::error_code ec, int /*signal*/) {
    if (ec) return;
    std::fputs("gridstore serve: shutting down (in-flight requests finish)\n", stderr);
    Shutdown();
  });
}

void ServerImpl::Shutdown() {
  {
    MutexLock lock(&mu_);
    if (!deadline_) deadline_ = Clock::now() + kShutdownDeadline;
  }
  cv_.SignalAll();
  net::post(strand_, [this] { BeginShutdown(); });
}

void ServerImpl::BeginShutdown() {
  if (stopping_.exchange(true, std::memory_order_acq_rel)) return;
  beast::error_code ec;
  acceptor_.close(ec);
  retry_timer_.cancel();
  if (signals_) signals_->cancel(ec);
  std::vector<std::shared_ptr<Session>> live;
  {
    MutexLock lock(&mu_);
    for (const auto& [key, weak] : sessions_) {
      if (std::shared_ptr<Session> session = weak.lock()) live.push_back(std::move(session));
    }
  }
  for (const std::shared_ptr<Session>& session : live) session->StopIfIdle();
}

void ServerImpl::Run() {
  const int threads = std::max(1, options_.io_threads);
  {
    MutexLock lock(&mu_);
    io_running_ = threads;
  }
  std::vector<std::thread> io;
  io.reserve(threads);
  for (int i = 0; i < threads; ++i) io.emplace_back([this] { RunIo(); });
  WaitForIo();
  for (std::thread& t : io) t.join();
  pool_.join();  // idle by now, unless the deadline forced the io_context to stop
  expensive_pool_.join();
}

void ServerImpl::RunIo() {
  ioc_.run();
  {
    MutexLock lock(&mu_);
    --io_running_;
  }
  cv_.SignalAll();
}

// Waits until the io threads are done; stops the io_context once the shutdown deadline passes.
void ServerImpl::WaitForIo() {
  MutexLock lock(&mu_);
  bool forced = false;
  while (io_running_ > 0) {
    if (!deadline_ || forced) {
      cv_.Wait(&mu_);
      continue;
    }
    const Clock::time_point now = Clock::now();
    if (now < *deadline_) {
      cv_.WaitFor(&mu_, *deadline_ - now);
      continue;
    }
    std::fputs("gridstore serve: shutdown deadline passed, closing the remaining connections\n",
               stderr);
    ioc_.stop();
    forced = true;
  }
}

HttpResponse ServerImpl::Invoke(const HttpRequest& request) const {
  try {
    return handler_(request);
  } catch (const std::exception& e) {
    return TransportError(500, "ServerError", std::string("the request failed: ") + e.what());
  } catch (...) {
    return TransportError(500, "ServerError", "the request failed (unknown exception)");
  }
}

std::shared_ptr<Response> ServerImpl::MakeResponse(HttpResponse r, const Exchange& exchange) const {
  auto res = std::make_shared<Response>(static_cast<http::status>(r.status), exchange.version);
  res->set(http::field::server, "gridstore");
  res->set(http::field::content_type, r.content_type);
  for (const auto& [name, value] : r.headers) {
    // A header with a line break would let a value inject headers: drop it.
    if (name.find_first_of("\r\n") == std::string::npos &&
        value.find_first_of("\r\n") == std::string::npos) {
      res->insert(name, value);
    }
  }
  if (!options_.cors_origin.empty()) {
    res->set(http::field::access_control_allow_origin, options_.cors_origin);
    res->set(http::field::vary, "Origin");
  }
  const bool no_body = r.status < 200 || r.status == 204 || r.status == 304;
  if (!no_body) res->content_length(r.body.size());
  if (!exchange.head && !no_body) res->body() = std::move(r.body);
  res->keep_alive(exchange.keep_alive && !exchange.linger && !stopping());
  return res;
}

void ServerImpl::LogAccess(const std::string& remote, const Exchange& exchange, unsigned status,
                           size_t bytes) const {
  if (!options_.access_log) return;
  const double ms =
      std::chrono::duration<double, std::milli>(Clock::now() - exchange.start).count();
  char tail[64];
  std::snprintf(tail, sizeof(tail), " %.1fms\n", ms);
  const std::string line = remote + " - - [" + LogTimestamp() + "] \"" +
                           SanitizeForLog(exchange.request_line) + "\" " + std::to_string(status) +
                           " " + (bytes == 0 ? std::string("-") : std::to_string(bytes)) + tail;
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines do not interleave
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::Listen(const HttpServerOptions& options,
                                                       HttpHandler handler) {
  beast::error_code ec;
  const net::ip::address address = net::ip::make_address(options.host, ec);
  if (ec) return Status::InvalidArgument("not an IP address: \"" + options.host + "\"");
  auto server = std::make_unique<ServerImpl>(options, std::move(handler));
  GRIDSTORE_RETURN_IF_ERROR(server->Open(address));
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace gridstore::server
