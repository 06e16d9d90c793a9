// Copyright 2026 The GridStore Authors.
//
// A blocking HTTP/1.1 client on one loopback connection, on POSIX sockets, for the service's
// tests over a real socket (http_server_test.cc, forecast_routes_test.cc): a test can send half
// a request or stall, and every read gives up after 10 s, so that a broken server fails the test
// instead of hanging it.
#ifndef GRIDSTORE_TESTS_SERVER_HTTP_CLIENT_TESTUTIL_H_
#define GRIDSTORE_TESTS_SERVER_HTTP_CLIENT_TESTUTIL_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gridstore::testing {

struct ClientResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// A blocking HTTP/1.1 client on one connection. Every read gives up after 10 s, so that a broken
// server fails the test instead of hanging it.
class Client {
 public:
  explicit Client(uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }

  bool Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // One response (no body after a HEAD); nullopt if the connection ends or stalls first.
  std::optional<ClientResponse> Read(bool head = false) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    ClientResponse r;
    const std::string head_text = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    size_t line_end = head_text.find("\r\n");
    const std::string status_line = head_text.substr(0, line_end);
    if (status_line.size() < 12) return std::nullopt;
    r.status = std::stoi(status_line.substr(9, 3));
    while (line_end != std::string::npos) {
      const size_t start = line_end + 2;
      line_end = head_text.find("\r\n", start);
      const std::string line = head_text.substr(start, line_end - start);
      const size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    const size_t length = head ? 0 : std::stoul(r.header("content-length"));
    while (buffer_.size() < length) {
      if (!Fill()) return std::nullopt;
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  // True once the server has closed the connection (end of stream or reset), false if it is
  // still open after 10 s or sent more data.
  bool ServerClosed() {
    char c;
    const ssize_t n = recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  bool Fill() {
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  std::string buffer_;
};

// One GET of `target` on a new connection to 127.0.0.1:`port`; a failed test and an empty
// response if the server does not answer.
inline ClientResponse GetOnce(int port, const std::string& target) {
  Client client(port);
  EXPECT_TRUE(client.connected());
  EXPECT_TRUE(client.Send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  std::optional<ClientResponse> r = client.Read();
  EXPECT_TRUE(r.has_value()) << target;
  return r.value_or(ClientResponse{});
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_SERVER_HTTP_CLIENT_TESTUTIL_H_
