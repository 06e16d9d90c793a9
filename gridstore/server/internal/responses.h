// Copyright 2026 The GridStore Authors.
//
// Responses the endpoints share: JSON documents and the OGC API exception body
// {"code": ..., "description": ...} with the status that fits the error.
#ifndef GRIDSTORE_SERVER_INTERNAL_RESPONSES_H_
#define GRIDSTORE_SERVER_INTERNAL_RESPONSES_H_

#include <nlohmann/json.hpp>
#include <string>

#include "gridstore/server/http_message.h"
#include "gridstore/util/status.h"

namespace gridstore::server {

HttpResponse JsonResponse(const nlohmann::ordered_json& document,
                          const char* content_type = "application/json");
HttpResponse ErrorResponse(int status, const std::string& code, const std::string& description);
// InvalidArgument / OutOfRange -> 400, NotFound -> 404, Aborted / Unavailable -> 503 with
// Retry-After, anything else -> 500.
HttpResponse ErrorResponse(const Status& status);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_RESPONSES_H_
