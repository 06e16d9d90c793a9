// Copyright 2026 The GridStore Authors.
//
// Stored form of a dataset meta (docs/format.md, "Dataset meta"). Fixed-width integers and f64
// are little-endian; varint is LEB128 (util/coding.h); svarint is a zig-zag varint.
//
//   meta        := "GSMD" version:fixed32 body                  version 8 if the series layout
//                                                              is growing, else 7 if a
//                                                              coordinate's values are
//                                                              compact, else 6 if
//                                                              the series layout has block_z >
//                                                              1, else 5
//   body        := id:bytes incarnation:varint stamp layout attributes
//   stamp       := generation:varint flags:varint             version >= 3 (else 0, 0); flags
//                                                              bit 0: data keys carry the
//                                                              incarnation
//                  varint(n) variable{n} varint(n) coordinate{n}
//                  steps{n variables}                          version >= 4 (else none)
//                  series                                      version >= 5 (else none)
//   steps       := varint(n) (begin:svarint end:svarint){n}   a variable's complete steps
//   series      := 0x00                                        no series layout
//                | 0x01 block_t:svarint tile_x:svarint tile_y:svarint frame_points:svarint
//                  ready:u8 block_z:svarint                   block_z: version >= 6 (else 1)
//                  steps:svarint                               version >= 8 (else -1: all)
//   bytes       := varint(len) byte{len}
//   layout      := block_x:svarint block_y:svarint codec:u8 level:svarint
//                  frame_rows:svarint                          version >= 2 (else 0)
//   variable    := name:bytes type:u8 extent:svarint{4} dimension_name:bytes{4}
//                  fill_value:bytes packing varint(n) missing_value:f64{n} attributes
//   packing     := 0x00 | 0x01 scale_factor:f64 add_offset:f64 unpacked_type:u8
//   coordinate  := name:bytes varint(n) dimension:bytes{n} varint(n) extent:svarint{n} type:u8
//                  values attributes
//   values      := varint(n) value:f64{n}                      version < 7
//                | form:u8 ...                                 version >= 7: raw, start + step,
//                                                              or integer deltas
//                                                              (internal/coordinate_values.h)
//   attributes  := varint(n) (name:bytes value){n}             names strictly ascending
//   value       := 0x01 bytes                                  string
//                | 0x02 (0x00 | 0x01)                          bool
//                | 0x03 type:u8 varint(n) number{n}            number: svarint for integer types
//                                                              (uint64 as its bit pattern), f64
//                                                              for floating-point types
//
// The encoding is deterministic (maps are ordered), and Decode is strict: no trailing bytes, no
// out-of-order attribute names, flags only 0 or 1, no unknown enum values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/model/internal/coordinate_values.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::grid {
namespace {

constexpr char kMetaMagic[4] = {'G', 'S', 'M', 'D'};

void EncodeAttributes(const Attributes& attributes, std::string* dst) {
  PutVarint64(dst, attributes.size());
  for (const auto& [name, value] : attributes) {
    PutLengthPrefixed(dst, name);
    dst->push_back(static_cast<char>(value.kind()));
    switch (value.kind()) {
      case AttributeValue::Kind::kString:
        PutLengthPrefixed(dst, value.string_value());
        break;
      case AttributeValue::Kind::kBool:
        dst->push_back(value.bool_value() ? 1 : 0);
        break;
      case AttributeValue::Kind::kNumber:
        dst->push_back(static_cast<char>(value.number_type()));
        if (IsFloatingPoint(value.number_type())) {
          PutVarint64(dst, value.floats().size());
          for (double v : value.floats()) PutDouble(dst, v);
        } else {
          PutVarint64(dst, value.integers().size());
          for (int64_t v : value.integers()) PutVarsint64(dst, v);
        }
        break;
    }
  }
}

void EncodeDoubles(const std::vector<double>& values, std::string* dst) {
  PutVarint64(dst, values.size());
  // Little-endian hosts only (checked in CMake): the in-memory doubles are the stored bytes.
  dst->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
}

void EncodeVariable(const VariableMeta& v, std::string* dst) {
  PutLengthPrefixed(dst, v.name);
  dst->push_back(static_cast<char>(v.type));
  for (int64_t extent : v.shape) PutVarsint64(dst, extent);
  for (const std::string& name : v.dimension_names) PutLengthPrefixed(dst, name);
  PutLengthPrefixed(dst, v.fill_value);
  if (v.packing.has_value()) {
    dst->push_back(1);
    PutDouble(dst, v.packing->scale_factor);
    PutDouble(dst, v.packing->add_offset);
    dst->push_back(static_cast<char>(v.packing->unpacked_type));
  } else {
    dst->push_back(0);
  }
  EncodeDoubles(v.missing_values, dst);
  EncodeAttributes(v.attributes, dst);
}

void EncodeSteps(const StepSet& steps, std::string* dst) {
  PutVarint64(dst, steps.ranges().size());
  for (const auto& [begin, end] : steps.ranges()) {
    PutVarsint64(dst, begin);
    PutVarsint64(dst, end);
  }
}

// `form`: the values' form in a version-7 meta; nullopt in an older one (raw, untagged).
void EncodeCoordinate(const Coordinate& c, std::optional<internal_meta::ValuesForm> form,
                      std::string* dst) {
  PutLengthPrefixed(dst, c.name);
  PutVarint64(dst, c.dimensions.size());
  for (const std::string& d : c.dimensions) PutLengthPrefixed(dst, d);
  PutVarint64(dst, c.shape.size());
  for (int64_t extent : c.shape) PutVarsint64(dst, extent);
  dst->push_back(static_cast<char>(c.type));
  if (form) {
    internal_meta::EncodeValues(c.values, *form, dst);
  } else {
    EncodeDoubles(c.values, dst);
  }
  EncodeAttributes(c.attributes, dst);
}

// ---- Decoding ----

// What an error message calls a field: plain text, or "<kind> '<name>'<field>" (a field of a
// named variable or coordinate), which is built only when an error is reported: decoding a
// meta (done for every dataset a query returns) builds no message strings.
class What {
 public:
  What(const char* text) : field_(text) {}         // NOLINT: implicit on purpose
  What(std::string_view text) : field_(text) {}    // NOLINT
  What(const std::string& text) : field_(text) {}  // NOLINT
  What(std::string_view kind, std::string_view name, std::string_view field)
      : kind_(kind), name_(name), field_(field) {}

  std::string ToString() const {
    if (kind_.empty()) return std::string(field_);
    return std::string(kind_) + " '" + EscapeForMessage(name_) + "'" + std::string(field_);
  }

 private:
  std::string_view kind_, name_, field_;
};

// Wraps ByteReader so that every failure becomes a DataLoss naming the field and the offset.
class MetaDecoder {
 public:
  explicit MetaDecoder(std::string_view in) : reader_(in), size_(in.size()) {}

  Status Error(const What& what) const {
    return Status::DataLoss("dataset meta is truncated or malformed: " + what.ToString() +
                            " at byte " + std::to_string(size_ - reader_.remaining().size()) +
                            " of " + std::to_string(size_));
  }

  Status Varint(const What& what, uint64_t* v) {
    return reader_.ReadVarint64(v) ? Status::OK() : Error(what);
  }
  Status Svarint(const What& what, int64_t* v) {
    return reader_.ReadVarsint64(v) ? Status::OK() : Error(what);
  }
  Status Double(const What& what, double* v) {
    return reader_.ReadDouble(v) ? Status::OK() : Error(what);
  }
  Status Byte(const What& what, uint8_t* v) {
    return reader_.ReadByte(v) ? Status::OK() : Error(what);
  }
  Status Bytes(const What& what, std::string* v) {
    std::string_view view;
    if (!reader_.ReadLengthPrefixed(&view)) return Error(what);
    v->assign(view);
    return Status::OK();
  }
  Status Bool(const What& what, bool* v) {
    uint8_t b = 0;
    if (!reader_.ReadByte(&b) || b > 1) return Error(what);
    *v = b == 1;
    return Status::OK();
  }
  Status Type(const What& what, DataType* type) {
    uint8_t raw = 0;
    if (!reader_.ReadByte(&raw) || !IsValidDataType(raw)) return Error(what);
    *type = static_cast<DataType>(raw);
    return Status::OK();
  }
  // A count of items that take at least `min_item_bytes` each: bounded by what remains, so that
  // a corrupt count cannot make the decoder reserve absurd amounts of memory.
  Status Count(const What& what, size_t min_item_bytes, size_t* n) {
    uint64_t v = 0;
    if (!reader_.ReadVarint64(&v) || v > reader_.remaining().size() / min_item_bytes) {
      return Error(what);
    }
    *n = static_cast<size_t>(v);
    return Status::OK();
  }
  Status Doubles(const What& what, std::vector<double>* values) {
    size_t n = 0;
    GRIDSTORE_RETURN_IF_ERROR(Count(what, sizeof(double), &n));
    std::string_view raw;
    if (!reader_.ReadBytes(n * sizeof(double), &raw)) return Error(what);
    values->resize(n);
    if (n > 0) std::memcpy(values->data(), raw.data(), raw.size());
    return Status::OK();
  }

  Status CoordinateValues(const What& what, uint64_t expected, std::vector<double>* values) {
    return internal_meta::DecodeValues(&reader_, expected, values) ? Status::OK() : Error(what);
  }

  bool ReadMagic() {
    std::string_view magic;
    return reader_.ReadBytes(4, &magic) && magic == std::string_view(kMetaMagic, 4);
  }
  bool ReadFixed32(uint32_t* v) { return reader_.ReadFixed32(v); }
  bool empty() const { return reader_.empty(); }

 private:
  ByteReader reader_;
  size_t size_;
};

// `keep` (sorted, unique; null: all) names the attributes to keep; the others are parsed and
// dropped.
Status DecodeAttributes(MetaDecoder& d, const What& owner, Attributes* attributes,
                        const std::vector<std::string>* keep = nullptr) {
  // Meta queries decode attributes of many metas: build message strings only on failure.
  const std::string_view kNoName(nullptr, 0);
  auto fail = [&](std::string_view name, std::string_view suffix) {
    std::string where = owner.ToString() + " attributes";
    if (name.data() != nullptr) where += ": '" + EscapeForMessage(name) + "'";
    where += suffix;
    return d.Error(where);
  };
  size_t n = 0;
  if (!d.Count("", 3, &n).ok()) return fail(kNoName, "");
  std::string last;  // the previous name: names are strictly ascending
  for (size_t i = 0; i < n; ++i) {
    std::string name;
    if (!d.Bytes("", &name).ok()) return fail(kNoName, ": name");
    if (!(last < name) && i > 0) {
      return d.Error(owner.ToString() + " attributes: attribute '" + EscapeForMessage(name) +
                     "' out of order");
    }
    uint8_t kind = 0;
    if (!d.Byte("", &kind).ok()) return fail(name, " kind");
    AttributeValue value;
    switch (kind) {
      case static_cast<uint8_t>(AttributeValue::Kind::kString): {
        std::string s;
        if (!d.Bytes("", &s).ok()) return fail(name, "");
        value = AttributeValue::String(std::move(s));
        break;
      }
      case static_cast<uint8_t>(AttributeValue::Kind::kBool): {
        bool b = false;
        if (!d.Bool("", &b).ok()) return fail(name, "");
        value = AttributeValue::Bool(b);
        break;
      }
      case static_cast<uint8_t>(AttributeValue::Kind::kNumber): {
        DataType type = DataType::kInt64;
        if (!d.Type("", &type).ok()) return fail(name, " number type");
        if (IsFloatingPoint(type)) {
          std::vector<double> values;
          if (!d.Doubles("", &values).ok()) return fail(name, "");
          value = AttributeValue::Floats(type, std::move(values));
        } else {
          size_t count = 0;
          if (!d.Count("", 1, &count).ok()) return fail(name, "");
          std::vector<int64_t> values(count);
          for (int64_t& v : values) {
            if (!d.Svarint("", &v).ok()) return fail(name, "");
          }
          value = AttributeValue::Integers(type, std::move(values));
        }
        break;
      }
      default:
        return fail(name, " kind " + std::to_string(kind));
    }
    if (keep == nullptr || std::binary_search(keep->begin(), keep->end(), name)) {
      last = name;
      attributes->emplace_hint(attributes->end(), std::move(name), std::move(value));
    } else {
      last = std::move(name);
    }
  }
  return Status::OK();
}

Status DecodeVariable(MetaDecoder& d, VariableMeta* v) {
  GRIDSTORE_RETURN_IF_ERROR(d.Bytes("variable name", &v->name));
  auto where = [v](std::string_view field) { return What("variable", v->name, field); };
  GRIDSTORE_RETURN_IF_ERROR(d.Type(where(" data type"), &v->type));
  for (int64_t& extent : v->shape) GRIDSTORE_RETURN_IF_ERROR(d.Svarint(where(" shape"), &extent));
  for (std::string& name : v->dimension_names) {
    GRIDSTORE_RETURN_IF_ERROR(d.Bytes(where(" dimension names"), &name));
  }
  GRIDSTORE_RETURN_IF_ERROR(d.Bytes(where(" fill value"), &v->fill_value));
  bool has_packing = false;
  GRIDSTORE_RETURN_IF_ERROR(d.Bool(where(" packing flag"), &has_packing));
  if (has_packing) {
    Packing p;
    GRIDSTORE_RETURN_IF_ERROR(d.Double(where(" scale_factor"), &p.scale_factor));
    GRIDSTORE_RETURN_IF_ERROR(d.Double(where(" add_offset"), &p.add_offset));
    GRIDSTORE_RETURN_IF_ERROR(d.Type(where(" unpacked type"), &p.unpacked_type));
    v->packing = p;
  }
  GRIDSTORE_RETURN_IF_ERROR(d.Doubles(where(" missing values"), &v->missing_values));
  return DecodeAttributes(d, where(""), &v->attributes);
}

Status DecodeSteps(MetaDecoder& d, VariableMeta* v) {
  const What where("variable", v->name, " complete steps");
  size_t n = 0;
  GRIDSTORE_RETURN_IF_ERROR(d.Count(where, 2, &n));
  int64_t last_end = -1;
  for (size_t i = 0; i < n; ++i) {
    int64_t begin = 0, end = 0;
    GRIDSTORE_RETURN_IF_ERROR(d.Svarint(where, &begin));
    GRIDSTORE_RETURN_IF_ERROR(d.Svarint(where, &end));
    // Strict, so that Encode(Decode(x)) == x: sorted, disjoint, not touching.
    if (begin <= last_end || begin >= end) {
      return d.Error(What("variable", v->name, " complete steps out of order"));
    }
    v->complete_steps.Add(begin, end);
    last_end = end;
  }
  return Status::OK();
}

Status DecodeCoordinate(MetaDecoder& d, uint32_t version, Coordinate* c) {
  GRIDSTORE_RETURN_IF_ERROR(d.Bytes("coordinate name", &c->name));
  auto where = [c](std::string_view field) { return What("coordinate", c->name, field); };
  size_t n = 0;
  GRIDSTORE_RETURN_IF_ERROR(d.Count(where(" dimensions"), 1, &n));
  c->dimensions.resize(n);
  for (std::string& dim : c->dimensions) {
    GRIDSTORE_RETURN_IF_ERROR(d.Bytes(where(" dimensions"), &dim));
  }
  GRIDSTORE_RETURN_IF_ERROR(d.Count(where(" shape"), 1, &n));
  c->shape.resize(n);
  for (int64_t& extent : c->shape) GRIDSTORE_RETURN_IF_ERROR(d.Svarint(where(" shape"), &extent));
  GRIDSTORE_RETURN_IF_ERROR(d.Type(where(" data type"), &c->type));
  if (version >= 7) {
    uint64_t expected = 1;
    for (int64_t extent : c->shape) {
      if (extent < 0 || extent > (int64_t{1} << 31)) return d.Error(where(" shape"));
      expected = std::min<uint64_t>(expected * static_cast<uint64_t>(extent), uint64_t{1} << 62);
    }
    GRIDSTORE_RETURN_IF_ERROR(d.CoordinateValues(where(" values"), expected, &c->values));
  } else {
    GRIDSTORE_RETURN_IF_ERROR(d.Doubles(where(" values"), &c->values));
  }
  return DecodeAttributes(d, where(""), &c->attributes);
}

// ---- Validation ----

}  // namespace

void DataSetMeta::EncodeTo(std::string* dst) const {
  // The oldest version that holds this meta, so that builds before block_z (version 6) or
  // compact coordinate values (version 7) read every meta that does not use them.
  std::vector<internal_meta::ValuesForm> forms;
  forms.reserve(coordinates.size());
  bool needs_v7 = false;
  size_t value_bytes = 0;
  for (const Coordinate& c : coordinates) {
    forms.push_back(internal_meta::ChooseValuesForm(c.values));
    if (forms.back() == internal_meta::ValuesForm::kRaw) {
      value_bytes += c.values.size() * sizeof(double);
    } else {
      needs_v7 = true;
    }
  }
  dst->reserve(dst->size() + value_bytes + 1024);

  dst->append(kMetaMagic, 4);
  const uint32_t version = series && series->steps != kSeriesAllSteps ? 8
                           : needs_v7                                 ? 7
                           : series && series->block_z != 1           ? 6
                                                                      : 5;
  PutFixed32(dst, version);
  PutLengthPrefixed(dst, id);
  PutVarint64(dst, incarnation);
  PutVarint64(dst, generation);
  PutVarint64(dst, incarnation_in_keys ? 1 : 0);
  PutVarsint64(dst, layout.block_x);
  PutVarsint64(dst, layout.block_y);
  dst->push_back(static_cast<char>(layout.codec.codec));
  PutVarsint64(dst, layout.codec.level);
  PutVarsint64(dst, layout.frame_rows);
  EncodeAttributes(attributes, dst);
  PutVarint64(dst, variables.size());
  for (const VariableMeta& v : variables) EncodeVariable(v, dst);
  PutVarint64(dst, coordinates.size());
  for (size_t i = 0; i < coordinates.size(); ++i) {
    EncodeCoordinate(coordinates[i], version >= 7 ? std::optional(forms[i]) : std::nullopt, dst);
  }
  for (const VariableMeta& v : variables) EncodeSteps(v.complete_steps, dst);
  dst->push_back(series ? 1 : 0);
  if (series) {
    PutVarsint64(dst, series->block_t);
    PutVarsint64(dst, series->tile_x);
    PutVarsint64(dst, series->tile_y);
    PutVarsint64(dst, series->frame_points);
    dst->push_back(series->ready ? 1 : 0);
    if (version >= 6) PutVarsint64(dst, series->block_z);
    if (version >= 8) PutVarsint64(dst, series->steps);
  }
}

namespace {

// Reads everything before the variables: header, id, incarnation, layout and attributes.
Status DecodeHead(MetaDecoder& d, DataSetMeta* meta, uint32_t* version_out = nullptr,
                  const std::vector<std::string>* keep = nullptr) {
  if (!d.ReadMagic()) return Status::DataLoss("not a dataset meta: bad magic (expected \"GSMD\")");
  uint32_t version = 0;
  if (!d.ReadFixed32(&version)) return d.Error("format version");
  if (version > kMetaFormatVersion) {
    return Status::Unimplemented("dataset meta format version " + std::to_string(version) +
                                 " is newer than this build reads (" +
                                 std::to_string(kMetaFormatVersion) + ")");
  }
  if (version == 0) return Status::DataLoss("dataset meta format version 0 is invalid");
  if (version_out != nullptr) *version_out = version;

  GRIDSTORE_RETURN_IF_ERROR(d.Bytes("id", &meta->id));
  GRIDSTORE_RETURN_IF_ERROR(d.Varint("incarnation", &meta->incarnation));
  meta->generation = 0;
  meta->incarnation_in_keys = false;  // metas before version 3 name keys without it
  if (version >= 3) {
    uint64_t flags = 0;
    GRIDSTORE_RETURN_IF_ERROR(d.Varint("generation", &meta->generation));
    GRIDSTORE_RETURN_IF_ERROR(d.Varint("flags", &flags));
    if (flags > 1) return d.Error("flags " + std::to_string(flags));
    meta->incarnation_in_keys = flags == 1;
  }
  GRIDSTORE_RETURN_IF_ERROR(d.Svarint("block shape", &meta->layout.block_x));
  GRIDSTORE_RETURN_IF_ERROR(d.Svarint("block shape", &meta->layout.block_y));
  uint8_t codec = 0;
  GRIDSTORE_RETURN_IF_ERROR(d.Byte("codec", &codec));
  if (codec > static_cast<uint8_t>(Codec::kShuffleZstd))
    return d.Error("codec " + std::to_string(codec));
  meta->layout.codec.codec = static_cast<Codec>(codec);
  int64_t level = 0;
  GRIDSTORE_RETURN_IF_ERROR(d.Svarint("codec level", &level));
  if (level < INT32_MIN || level > INT32_MAX) return d.Error("codec level");
  meta->layout.codec.level = static_cast<int>(level);
  meta->layout.frame_rows = 0;
  if (version >= 2) GRIDSTORE_RETURN_IF_ERROR(d.Svarint("frame rows", &meta->layout.frame_rows));
  return DecodeAttributes(d, "dataset", &meta->attributes, keep);
}

}  // namespace

Status DataSetMeta::DecodeAttributes(std::string_view bytes, Attributes* attributes) {
  MetaDecoder d(bytes);
  DataSetMeta meta;
  GRIDSTORE_RETURN_IF_ERROR(DecodeHead(d, &meta));
  *attributes = std::move(meta.attributes);
  return Status::OK();
}

Status DataSetMeta::DecodeAttributes(std::string_view bytes, const std::vector<std::string>& keep,
                                     Attributes* attributes) {
  MetaDecoder d(bytes);
  DataSetMeta meta;
  GRIDSTORE_RETURN_IF_ERROR(DecodeHead(d, &meta, nullptr, &keep));
  *attributes = std::move(meta.attributes);
  return Status::OK();
}

Result<DataSetMeta> DataSetMeta::Decode(std::string_view bytes) {
  MetaDecoder d(bytes);
  DataSetMeta meta;
  uint32_t version = 0;
  GRIDSTORE_RETURN_IF_ERROR(DecodeHead(d, &meta, &version));

  size_t n = 0;
  // A variable takes at least 12 bytes, a coordinate at least 6.
  GRIDSTORE_RETURN_IF_ERROR(d.Count("variable count", 12, &n));
  meta.variables.resize(n);
  for (VariableMeta& v : meta.variables) GRIDSTORE_RETURN_IF_ERROR(DecodeVariable(d, &v));
  GRIDSTORE_RETURN_IF_ERROR(d.Count("coordinate count", 6, &n));
  meta.coordinates.resize(n);
  for (Coordinate& c : meta.coordinates) {
    GRIDSTORE_RETURN_IF_ERROR(DecodeCoordinate(d, version, &c));
  }
  if (version >= 4) {
    for (VariableMeta& v : meta.variables) GRIDSTORE_RETURN_IF_ERROR(DecodeSteps(d, &v));
  }
  if (version >= 5) {
    bool has_series = false;
    GRIDSTORE_RETURN_IF_ERROR(d.Bool("series layout flag", &has_series));
    if (has_series) {
      SeriesLayout& series = meta.series.emplace();
      for (int64_t* side :
           {&series.block_t, &series.tile_x, &series.tile_y, &series.frame_points}) {
        GRIDSTORE_RETURN_IF_ERROR(d.Svarint("series layout", side));
      }
      GRIDSTORE_RETURN_IF_ERROR(d.Bool("series layout state", &series.ready));
      if (version >= 6)
        GRIDSTORE_RETURN_IF_ERROR(d.Svarint("series layout levels", &series.block_z));
      if (version >= 8) GRIDSTORE_RETURN_IF_ERROR(d.Svarint("series layout steps", &series.steps));
    }
  }
  if (!d.empty()) return d.Error("trailing bytes after the meta");
  return meta;
}
}  // namespace gridstore::grid
