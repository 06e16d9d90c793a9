// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/internal/meta_covering.h"

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
  ByteReader in(value.substr(1));
  uint64_t n = 0;
  if (!in.ReadVarint64(&n) || n != fields) return false;
  row->resize(fields);
  for (Scalar& v : *row) {
    uint8_t kind = 0;
    if (!in.ReadByte(&kind)) return false;
    v = Scalar{};
    uint64_t bits = 0;
    switch (kind) {
      case Scalar::kNone:
        break;
      case Scalar::kInt:
        if (!in.ReadFixed64(&bits)) return false;
        v = IntScalar(static_cast<int64_t>(bits));
        break;
      case Scalar::kDouble:
        if (!in.ReadFixed64(&bits)) return false;
        v = DoubleScalar(std::bit_cast<double>(bits));
        break;
      case Scalar::kString: {
        std::string_view s;
        if (!in.ReadLengthPrefixed(&s)) return false;
        v = StringScalar(s);
        break;
      }
      case Scalar::kBool: {
        uint8_t b = 0;
        if (!in.ReadByte(&b) || b > 1) return false;
        v = BoolScalar(b == 1);
        break;
      }
      default:
        return false;
    }
  }
  return in.empty();
}

}  // namespace gridstore::internal_grid
