// Copyright 2026 The GridStore Authors.
#include "tools/meta_commands.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/model/names.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/utf8.h"
#include "tools/cli_parse.h"
#include "tools/info_format.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

void CollectFields(const grid::Query& q, std::vector<std::string>* fields) {
  const grid::Query::Node& n = q.node();
  if (!n.field.empty() && std::find(fields->begin(), fields->end(), n.field) == fields->end()) {
    fields->push_back(n.field);
  }
  for (const grid::Query& c : n.children) CollectFields(c, fields);
}

std::vector<std::string> QueryAndSortFields(const grid::Query& query,
                                            const std::vector<grid::SortField>& sort) {
  std::vector<std::string> fields = QueryFields(query);
  for (const auto& s : sort) {
    if (s.field != "id" && std::find(fields.begin(), fields.end(), s.field) == fields.end()) {
      fields.push_back(s.field);
    }
  }
  return fields;
}

bool Holds(const grid::MetaIndexSchema& schema, const std::string& field) {
  return std::any_of(schema.fields.begin(), schema.fields.end(),
                     [&](const grid::IndexField& f) { return f.name == field; });
}

const char* JsonTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::null:
      return "null";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    default:
      return "a number";
  }
}

// Builds the document as nlohmann's own parser does, and also remembers what the document cannot
// tell: which attribute values were integers too large for any integer type (nlohmann makes them
// doubles, silently losing digits), and the parse error's description, without exceptions.
class MetaLineSax {
 public:
  explicit MetaLineSax(json* doc) : dom_(*doc, /*allow_exceptions_=*/false) {}

  // Attribute name -> the integer's text, for values of "attributes" that were integer literals
  // beyond uint64 / int64.
  const std::map<std::string, std::string, std::less<>>& huge_integers() const {
    return huge_integers_;
  }
  const std::string& error() const { return error_; }

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& text) {
    if (depth_ == 2 && top_key_ == "attributes" && text.find_first_of(".eE") == std::string::npos) {
      huge_integers_.emplace(key_, text);
    }
    return dom_.number_float(v, text);
  }
  bool string(std::string& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    ++depth_;
    return dom_.start_object(n);
  }
  bool key(std::string& k) {
    if (depth_ == 1) top_key_ = k;
    key_ = k;
    return dom_.key(k);
  }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    ++depth_;
    return dom_.start_array(n);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    error_ = e.what();
    return false;
  }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
  std::string top_key_;
  std::string key_;
  std::map<std::string, std::string, std::less<>> huge_integers_;
  std::string error_;
};

}  // namespace

Result<std::vector<grid::SortField>> ParseSort(std::string_view text) {
  return grid::ParseSortFields(text, "--sort");
}

Result<grid::IndexField> ParseIndexField(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument(
        "index field '" + EscapeBytes(text) +
        "': expected FIELD:TYPE with TYPE string, int64, double or bool");
  }
  grid::IndexField field;
  field.name = std::string(text.substr(0, colon));
  auto type = grid::ParseIndexFieldType(text.substr(colon + 1));
  if (!type.ok()) {
    return Status::InvalidArgument("index field " + Quote(text) + ": unknown type '" +
                                   EscapeBytes(text.substr(colon + 1)) +
                                   "' (expected string, int64, double or bool)");
  }
  field.type = *type;
  return field;
}

std::string FormatIndexSchema(const grid::MetaIndexSchema& schema) {
  std::string out;
  for (const auto& f : schema.fields) {
    if (!out.empty()) out += ", ";
    out += EscapeBytes(f.name) + ":" + std::string(grid::IndexFieldTypeName(f.type));
  }
  return out;
}

std::vector<std::string> QueryFields(const grid::Query& query) {
  std::vector<std::string> fields;
  CollectFields(query, &fields);
  return fields;
}

std::string UncoveredFields(const grid::Query& query, const std::vector<grid::SortField>& sort,
                            const grid::MetaIndexSchema* schema) {
  std::string out;
  for (const std::string& f : QueryAndSortFields(query, sort)) {
    if (schema != nullptr && Holds(*schema, f)) continue;
    out += (out.empty() ? "" : ", ") + EscapeBytes(f);
  }
  return out;
}

std::string FormatQueryResultJson(const grid::QueryResult& result, bool ids_only) {
  // The dataset list is the same as a query without the index printed; the plan fields follow.
  const size_t shown = ids_only ? result.ids.size() : result.metas.size();
  const size_t total = result.total >= 0 ? static_cast<size_t>(result.total) : shown;
  ordered_json doc = ordered_json::parse(ids_only ? FormatIdListJson(result.ids, total)
                                                  : FormatDataSetListJson(result.metas, total));
  doc["plan"] = result.plan;
  doc["scanned"] = result.scanned;
  doc["next_token"] = result.next_token;
  // The plan quotes field names and values, which may be bytes that are not UTF-8 (U+FFFD then).
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

namespace {

// The "attributes" object of a `meta put` line into out->set and out->remove.
Status ParseAttributes(const json& attributes, const MetaLineSax& sax, const std::string& where,
                       MetaPutLine* out) {
  for (auto a = attributes.begin(); a != attributes.end(); ++a) {
    const std::string& name = a.key();
    if (name.empty()) return Status::InvalidArgument(where + "an attribute name is empty");
    const std::string shown = "attribute " + Quote(name);
    const json& v = a.value();
    switch (v.type()) {
      case json::value_t::string:
        out->set[name] = grid::AttributeValue::String(v.get<std::string>());
        break;
      case json::value_t::boolean:
        out->set[name] = grid::AttributeValue::Bool(v.get<bool>());
        break;
      case json::value_t::number_integer:
        out->set[name] = grid::AttributeValue::Int64(v.get<int64_t>());
        break;
      case json::value_t::number_unsigned: {
        const uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Status::InvalidArgument(where + shown + ": " + std::to_string(u) +
                                         " is out of the int64 range");
        }
        out->set[name] = grid::AttributeValue::Int64(static_cast<int64_t>(u));
        break;
      }
      case json::value_t::number_float:
        if (auto huge = sax.huge_integers().find(name); huge != sax.huge_integers().end()) {
          return Status::InvalidArgument(where + shown + ": " + huge->second +
                                         " is out of the int64 range (write a string, or a "
                                         "number with a fraction or exponent for a double)");
        }
        out->set[name] = grid::AttributeValue::Double(v.get<double>());
        break;
      case json::value_t::null:
        out->remove.push_back(name);
        break;
      default:
        return Status::InvalidArgument(where + shown +
                                       " must be a string, number, boolean or null (to "
                                       "remove it), not " +
                                       JsonTypeName(v));
    }
  }
  return Status::OK();
}

}  // namespace

Result<MetaPutLine> ParseMetaPutLine(std::string_view text, size_t line_number) {
  const std::string where = "line " + std::to_string(line_number) + ": ";
  json doc;
  MetaLineSax sax(&doc);
  if (!json::sax_parse(text, &sax) || !sax.error().empty()) {
    std::string detail = sax.error();
    const size_t at = detail.find("parse error at ");
    if (at != std::string::npos) detail = detail.substr(at + 15);
    return Status::InvalidArgument(where + "not valid JSON (" + detail + ")");
  }
  if (!doc.is_object()) {
    return Status::InvalidArgument(where +
                                   "expected a JSON object {\"id\": ..., \"attributes\": "
                                   "{...}}, found " +
                                   JsonTypeName(doc));
  }
  MetaPutLine out;
  bool has_id = false;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "id") {
      if (!it->is_string()) {
        return Status::InvalidArgument(where + "'id' must be a string, not " + JsonTypeName(*it));
      }
      out.id = it->get<std::string>();
      Status s = grid::ValidateDataSetId(out.id);
      if (!s.ok()) return Status::InvalidArgument(where + std::string(s.message()));
      has_id = true;
    } else if (it.key() == "attributes") {
      if (!it->is_object()) {
        return Status::InvalidArgument(where + "'attributes' must be an object, not " +
                                       JsonTypeName(*it));
      }
      GRIDSTORE_RETURN_IF_ERROR(ParseAttributes(*it, sax, where, &out));
    } else {
      return Status::InvalidArgument(where + "unknown key '" + EscapeBytes(it.key()) +
                                     "' (expected \"id\" and \"attributes\")");
    }
  }
  if (!has_id) return Status::InvalidArgument(where + "'id' is missing");
  return out;
}

namespace {

// Calls fn(line, line_number) for each non-blank line.
template <typename Fn>
Status ForEachLine(std::string_view input, Fn&& fn) {
  size_t line_number = 0;
  size_t start = 0;
  while (start < input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    ++line_number;
    // Blanks and a CRLF line end go; JSON skips the same around a value anyway.
    std::string_view line = Trim(input.substr(start, end - start), " \t\r");
    start = end + 1;
    if (line.empty()) continue;
    GRIDSTORE_RETURN_IF_ERROR(fn(line, line_number));
  }
  return Status::OK();
}

}  // namespace

Status CheckMetaPutInput(std::string_view input) {
  // Parsed lines are not kept: a million of them would take gigabytes; PutMetas parses again.
  size_t lines = 0;
  GRIDSTORE_RETURN_IF_ERROR(ForEachLine(input, [&](std::string_view line, size_t n) -> Status {
    ++lines;
    return ParseMetaPutLine(line, n).status();
  }));
  if (lines == 0) return Status::InvalidArgument("the input holds no JSON lines");
  return Status::OK();
}

Result<MetaPutSummary> PutMetas(grid::GridStore* store, std::string_view input) {
  // Lines go to the store a batch at a time: one atomic write each, far faster than one per line.
  constexpr size_t kBatch = 1000;
  MetaPutSummary summary;
  std::vector<grid::DataSetMeta> batch;
  MetaPutSummary in_batch;
  size_t first_line = 0, last_line = 0;
  auto write_batch = [&]() -> Status {
    if (batch.empty()) return Status::OK();
    Status put = store->PutDataSetMetas(batch);
    if (!put.ok()) {
      return Status(put.code(), "lines " + std::to_string(first_line) + "-" +
                                    std::to_string(last_line) + ": " + std::string(put.message()));
    }
    summary.created += in_batch.created;
    summary.updated += in_batch.updated;
    in_batch = MetaPutSummary{};
    batch.clear();
    return Status::OK();
  };
  // Where an id already appeared in this batch, so that a repeated id builds on its own update.
  std::map<std::string, size_t, std::less<>> batch_index;
  Status s = ForEachLine(input, [&](std::string_view line, size_t n) -> Status {
    GRIDSTORE_ASSIGN_OR_RETURN(MetaPutLine parsed, ParseMetaPutLine(line, n));
    if (batch.empty()) {
      first_line = n;
      batch_index.clear();
    }
    last_line = n;
    grid::DataSetMeta meta;
    if (auto it = batch_index.find(parsed.id); it != batch_index.end()) {
      meta = batch[it->second];
      ++in_batch.updated;
    } else {
      auto existing = store->GetDataSetMeta(parsed.id);
      if (existing.ok()) {
        meta = std::move(existing).value();
        ++in_batch.updated;
      } else if (existing.status().code() == StatusCode::kNotFound) {
        meta.id = parsed.id;
        ++in_batch.created;
      } else {
        return existing.status();
      }
    }
    for (auto& [name, value] : parsed.set) meta.attributes[name] = std::move(value);
    for (const std::string& name : parsed.remove) meta.attributes.erase(name);
    batch_index[meta.id] = batch.size();
    batch.push_back(std::move(meta));
    return batch.size() >= kBatch ? write_batch() : Status::OK();
  });
  if (s.ok()) s = write_batch();
  if (!s.ok()) {
    // Every line was checked before: only the store fails here. Say how far it got.
    return Status(s.code(), std::string(s.message()) + " (" + std::to_string(summary.created) +
                                " created and " + std::to_string(summary.updated) +
                                " updated before the failure)");
  }
  return summary;
}

}  // namespace gridstore::tools
