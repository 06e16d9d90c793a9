// Copyright 2026 The GridStore Authors.
#include "gridstore/server/internal/responses.h"

namespace gridstore::server {

HttpResponse JsonResponse(const nlohmann::ordered_json& document, const char* content_type) {
  HttpResponse r;
  r.content_type = content_type;
  // Invalid UTF-8 in an attribute is replaced, not thrown on.
  r.body = document.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return r;
}

HttpResponse ErrorResponse(int status, const std::string& code, const std::string& description) {
  HttpResponse r = JsonResponse({{"code", code}, {"description", description}});
  r.status = status;
  return r;
}

HttpResponse ErrorResponse(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return ErrorResponse(400, "InvalidParameterValue", std::string(status.message()));
    case StatusCode::kNotFound:
      return ErrorResponse(404, "NotFound", std::string(status.message()));
    case StatusCode::kResourceExhausted:
      // Beyond a work budget (geo/extract.h): what to narrow is in the description.
      return ErrorResponse(413, "PayloadTooLarge", std::string(status.message()));
    case StatusCode::kFailedPrecondition:
      // The data's state, not the request, is the obstacle: a step of a run still arriving.
      return ErrorResponse(409, "Conflict", std::string(status.message()));
    case StatusCode::kAborted:
    case StatusCode::kUnavailable: {
      HttpResponse r = ErrorResponse(503, "ServiceUnavailable", std::string(status.message()));
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    default:
      return ErrorResponse(500, "ServerError", status.ToString());
  }
}

}  // namespace gridstore::server
