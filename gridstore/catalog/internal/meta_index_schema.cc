// Copyright 2026 The GridStore Authors.
//
// Index schemas: their stored form (docs/format.md, "Meta query index"), validation, and what
// keeps one schema from replacing another. Declared in meta_index.h.
#include "gridstore/catalog/internal/meta_compile.h"
#include "gridstore/catalog/internal/meta_index.h"
#include "gridstore/model/names.h"
#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {
namespace {

using grid::IndexField;
using grid::IndexFieldType;

constexpr uint8_t kSchemaVersion = 1;
constexpr size_t kMaxSchemaFields = 256;

}  // namespace

void EncodeMetaIndexSchema(const grid::MetaIndexSchema& schema, std::string* dst) {
  dst->push_back(static_cast<char>(kSchemaVersion));
  PutVarint64(dst, schema.fields.size());
  for (const IndexField& f : schema.fields) {
    PutLengthPrefixed(dst, f.name);
    dst->push_back(static_cast<char>(f.type));
  }
}

Result<grid::MetaIndexSchema> DecodeMetaIndexSchema(std::string_view bytes) {
  ByteReader reader(bytes);
  const Status bad = Status::DataLoss("meta index schema is truncated or malformed");
  uint8_t version = 0;
  uint64_t n = 0;
  if (!reader.ReadByte(&version) || version != kSchemaVersion || !reader.ReadVarint64(&n) ||
      n > bytes.size()) {
    return bad;
  }
  grid::MetaIndexSchema schema;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view name;
    uint8_t type = 0;
    if (!reader.ReadLengthPrefixed(&name) || !reader.ReadByte(&type) || type < 1 || type > 4) {
      return bad;
    }
    schema.fields.push_back(IndexField{std::string(name), static_cast<IndexFieldType>(type)});
  }
  if (!reader.empty()) return bad;
  return schema;
}

Status ValidateMetaIndexSchema(const grid::MetaIndexSchema& schema) {
  if (schema.fields.empty()) return Status::InvalidArgument("a meta index needs at least 1 field");
  if (schema.fields.size() > kMaxSchemaFields) {
    return Status::InvalidArgument("a meta index has at most " + std::to_string(kMaxSchemaFields) +
                                   " fields");
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const IndexField& f = schema.fields[i];
    GRIDSTORE_RETURN_IF_ERROR(grid::ValidateIndexFieldName(f.name));
    const auto t = static_cast<uint8_t>(f.type);
    if (t < 1 || t > 4) {
      return Status::InvalidArgument("field " + Quote(f.name) + " has unknown type " +
                                     std::to_string(t));
    }
    for (size_t j = 0; j < i; ++j) {
      if (schema.fields[j].name == f.name) {
        return Status::InvalidArgument("field " + Quote(f.name) + " is declared twice");
      }
    }
  }
  return Status::OK();
}

std::string MetaIndexSchemaConflict(const grid::MetaIndexSchema& existing,
                                    const grid::MetaIndexSchema& requested) {
  for (const IndexField& f : requested.fields) {
    const IndexField* old = nullptr;
    for (const IndexField& e : existing.fields)
      if (e.name == f.name) old = &e;
    if (old == nullptr) return "field " + Quote(f.name) + " is not in the existing index";
    if (old->type != f.type) {
      return "field " + Quote(f.name) + " is " + std::string(grid::IndexFieldTypeName(old->type)) +
             " in the existing index, not " + std::string(grid::IndexFieldTypeName(f.type));
    }
  }
  for (const IndexField& e : existing.fields) {
    bool found = false;
    for (const IndexField& f : requested.fields) found = found || f.name == e.name;
    if (!found) return "field " + Quote(e.name) + " of the existing index is missing";
  }
  if (!(existing == requested)) return "the fields are declared in a different order";
  return "";
}

}  // namespace gridstore::internal_grid
