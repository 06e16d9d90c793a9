// Copyright 2026 The GridStore Authors.
#include "gridstore/catalog/internal/meta_covering.h"

#include <bit>
#include <cstdint>

#include "gridstore/util/internal/coding.h"

namespace gridstore::internal_grid {

// The field tags are the Scalar kinds (docs/format.md pins them).
static_assert(Scalar::kNone == 0 && Scalar::kInt == 1 && Scalar::kDouble == 2 &&
              Scalar::kString == 3 && Scalar::kBool == 4);

void EncodeCoveredValues(const grid::MetaIndexInfo& index, const grid::Attributes& attributes,
                         std::string* dst) {
  dst->push_back(kCoveredVersion);
  PutVarint64(dst, index.schema.fields.size());
  for (const grid::IndexField& f : index.schema.fields) {
    auto it = attributes.find(f.name);
    const Scalar v = VisibleValue(it == attributes.end() ? nullptr : &it->second, &f);
    dst->push_back(static_cast<char>(v.kind));
    switch (v.kind) {
      case Scalar::kNone:
        break;
      case Scalar::kInt:
        PutFixed64(dst, static_cast<uint64_t>(v.i));
        break;
      case Scalar::kDouble:
        PutFixed64(dst, std::bit_cast<uint64_t>(v.d));
        break;
      case Scalar::kString:
        PutLengthPrefixed(dst, v.s);
        break;
      case Scalar::kBool:
        dst->push_back(v.b ? '\x01' : '\x00');
        break;
    }
  }
}

bool DecodeCoveredValues(std::string_view value, size_t fields, std::vector<Scalar>* row) {
  if (value.empty() || value[0] != kCoveredVersion) return false;
  const char* p = value.data() + 1;
  const char* const end = value.data() + value.size();
  uint64_t n = 0;
  p = GetVarint64Ptr(p, end, &n);
  if (p == nullptr || n != fields) return false;
  row->resize(fields);
  for (Scalar& v : *row) {
    if (p == end) return false;
    const uint8_t kind = static_cast<uint8_t>(*p++);
    v = Scalar{};
    switch (kind) {
      case Scalar::kNone:
        break;
      case Scalar::kInt:
        if (end - p < 8) return false;
        v.kind = Scalar::kInt;
        v.i = static_cast<int64_t>(DecodeFixed64(p));
        p += 8;
        break;
      case Scalar::kDouble:
        if (end - p < 8) return false;
        v.kind = Scalar::kDouble;
        v.d = std::bit_cast<double>(DecodeFixed64(p));
        p += 8;
        break;
      case Scalar::kString: {
        uint64_t len = 0;
        p = GetVarint64Ptr(p, end, &len);
        if (p == nullptr || len > static_cast<uint64_t>(end - p)) return false;
        v.kind = Scalar::kString;
        v.s = std::string_view(p, len);
        p += len;
        break;
      }
      case Scalar::kBool:
        if (p == end || static_cast<uint8_t>(*p) > 1) return false;
        v.kind = Scalar::kBool;
        v.b = *p++ == 1;
        break;
      default:
        return false;
    }
  }
  return p == end;
}

}  // namespace gridstore::internal_grid
