// Copyright 2026 The GridStore Authors.
// Boost.Beast 1.74 (Debian libboost-dev; header-only with Boost.Asio): asynchronous sessions on
// an io_context run by two threads.
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <cstdlib>
#include <memory>
#include <thread>
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without it
#include <vector>

#include "common.h"

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {}
  void Read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) self->Respond();
                     });
  }

 private:
  void Respond() {
    const std::string target(request_.target());
    const size_t q = target.find("coords=");
    auto response =
        std::make_shared<http::response<http::string_body>>(http::status::ok, request_.version());
    response->set(http::field::content_type, "application/prs.coverage+json");
    response->keep_alive(request_.keep_alive());
    response->body() = Body(q == std::string::npos ? "" : target.substr(q + 7));
    response->prepare_payload();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, size_t) {
                        if (!ec && response->keep_alive()) self->Read();
                      });
  }
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
};

void Accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<Session>(std::move(socket))->Read();
    Accept(acceptor);
  });
}

int main(int argc, char** argv) {
  boost::asio::io_context io(2);
  tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"),
                              static_cast<unsigned short>(argc > 1 ? std::atoi(argv[1]) : 18083)});
  Accept(acceptor);
  std::thread other([&io] { io.run(); });
  io.run();
  other.join();
  return 0;
}
