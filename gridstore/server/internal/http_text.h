// Copyright 2026 The GridStore Authors.
//
// The transport's own text: its JSON error bodies (written before any handler runs, so without
// a JSON library), and the access log's sanitized request lines and timestamps. Pure functions;
// safe from any thread.
#ifndef GRIDSTORE_SERVER_INTERNAL_HTTP_TEXT_H_
#define GRIDSTORE_SERVER_INTERNAL_HTTP_TEXT_H_

#include <string>
#include <string_view>

#include "gridstore/server/http_message.h"

namespace gridstore::server {

// `text` as the inside of a JSON string.
std::string JsonEscape(std::string_view text);

// {"code": CODE, "description": DESCRIPTION} with `status`.
HttpResponse TransportError(int status, std::string_view code, std::string_view description);

// The request line for the access log, so that a client cannot forge log lines or fields:
// control characters become \xHH, '"' and '\' are escaped.
std::string SanitizeForLog(std::string_view text);

// "25/Nov/2026:14:36:10 +0000" (English month names whatever the locale), now.
std::string LogTimestamp();

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_HTTP_TEXT_H_
