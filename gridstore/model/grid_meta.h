// Copyright 2026 The GridStore Authors.
//
// The data model: a dataset (one forecast run) holds variables, each with its own data type and
// 4-D shape over (t, z, x, y), fill value, packing and attributes; coordinates that label the
// dimensions; typed user attributes that queries search; and the block layout chosen at creation.
// DataSetMeta is a plain value type: copy it, edit it, hand it to GridStore. Its stored form is a
// versioned binary encoding (docs/format.md, "Dataset meta").
#ifndef GRIDSTORE_MODEL_GRID_META_H_
#define GRIDSTORE_MODEL_GRID_META_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/model/codec_options.h"
#include "gridstore/model/data_type.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

// The axes of every variable, in storage order: y varies fastest. A function that takes an axis
// takes an Axis.
enum class Axis : int { kT = 0, kZ = 1, kX = 2, kY = 3 };
inline constexpr int kRank = 4;
using Shape4 = std::array<int64_t, kRank>;
// Each axis's position in a Shape4 (shape[kT]): nearly every use of an axis is as an index, so
// these are plain integers rather than Axis values; Index and AxisAt convert.
inline constexpr int kT = static_cast<int>(Axis::kT);
inline constexpr int kZ = static_cast<int>(Axis::kZ);
inline constexpr int kX = static_cast<int>(Axis::kX);
inline constexpr int kY = static_cast<int>(Axis::kY);
constexpr int Index(Axis axis) { return static_cast<int>(axis); }
// REQUIRES: 0 <= index < kRank.
constexpr Axis AxisAt(int index) { return static_cast<Axis>(index); }
// "t", "z", "x", "y".
std::string_view AxisName(Axis axis);
inline std::string_view AxisName(int index) { return AxisName(AxisAt(index)); }

// A typed attribute value: a string, a bool, or one or more numbers of one DataType (netCDF
// attributes are arrays; user attributes for queries are scalars: string, int64, double, bool).
class AttributeValue {
 public:
  enum class Kind : uint8_t { kString = 1, kBool = 2, kNumber = 3 };

  AttributeValue() = default;  // the empty string
  static AttributeValue String(std::string value);
  static AttributeValue Bool(bool value);
  static AttributeValue Int64(int64_t value);
  static AttributeValue Double(double value);
  // Numbers of an integer `type`; uint64 values are held as their bit pattern.
  // REQUIRES: !IsFloatingPoint(type).
  static AttributeValue Integers(DataType type, std::vector<int64_t> values);
  // Numbers of a floating-point `type`. REQUIRES: IsFloatingPoint(type).
  static AttributeValue Floats(DataType type, std::vector<double> values);

  Kind kind() const { return kind_; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  // REQUIRES: is_number().
  DataType number_type() const { return number_type_; }

  const std::string& string_value() const { return string_; }         // REQUIRES: is_string()
  bool bool_value() const { return bool_; }                           // REQUIRES: is_bool()
  const std::vector<int64_t>& integers() const { return integers_; }  // integer number types
  const std::vector<double>& floats() const { return floats_; }       // floating number types
  // Count of numbers (1 for a string or bool).
  size_t size() const;
  // The i-th number as a double. REQUIRES: is_number(), i < size().
  double AsDouble(size_t i = 0) const;

  // For display: a string as is, true/false, numbers comma-separated.
  std::string ToString() const;

  bool operator==(const AttributeValue& other) const;

 private:
  Kind kind_ = Kind::kString;
  DataType number_type_ = DataType::kInt64;
  bool bool_ = false;
  std::string string_;
  std::vector<int64_t> integers_;
  std::vector<double> floats_;
};

// Ordered by name; std::less<> allows lookup by string_view.
using Attributes = std::map<std::string, AttributeValue, std::less<>>;

// A set of t indices as sorted, disjoint, non-touching [begin, end) ranges: the steps of a
// variable that are complete while its run is still arriving (DataSetMeta status INGESTING).
class StepSet {
 public:
  using Range = std::pair<int64_t, int64_t>;

  // Adds [begin, end); merges with the ranges it overlaps or touches. REQUIRES: begin <= end.
  void Add(int64_t begin, int64_t end);
  // True if every index in [begin, end) is in the set (an empty range always is).
  bool Contains(int64_t begin, int64_t end) const;
  // The first index in [begin, end) not in the set, or `end` if there is none.
  int64_t FirstMissing(int64_t begin, int64_t end) const;
  // How many indices the set holds.
  int64_t count() const;
  bool empty() const { return ranges_.empty(); }
  const std::vector<Range>& ranges() const { return ranges_; }
  // "0-4, 7" (inclusive, for messages); "none" if empty.
  std::string ToString() const;

  bool operator==(const StepSet&) const = default;

 private:
  std::vector<Range> ranges_;
};

// CF packing: unpacked = stored * scale_factor + add_offset.
struct Packing {
  double scale_factor = 1.0;
  double add_offset = 0.0;
  // The type of the packing attributes in the source; unpacked values take it (CF conventions).
  DataType unpacked_type = DataType::kFloat64;

  bool operator==(const Packing&) const = default;
};

struct VariableMeta {
  std::string name;
  DataType type = DataType::kFloat32;
  Shape4 shape = {1, 1, 1, 1};
  // The source's name for each axis ("time", "level", "lat", "lon"); empty for an axis the source
  // variable does not have (its size is then 1).
  std::array<std::string, kRank> dimension_names;
  // The fill value in the variable's type: DataTypeSize(type) little-endian bytes, or empty if the
  // variable has none (unwritten blocks then read as zero).
  std::string fill_value;
  std::optional<Packing> packing;
  // Further values that mean "missing" (CF missing_value); read as NaN when unpacking.
  std::vector<double> missing_values;
  // Everything else from the source: units, long_name, standard_name, ...
  Attributes attributes;
  // The t indices whose planes (every z) are all written. Read only while the dataset's status
  // is INGESTING: a run appended step by step (`import --append`), where a fetch of a step not in
  // it is refused. Empty otherwise.
  StepSet complete_steps;

  template <typename T>
  void set_fill_value(T value) {
    type = kDataTypeOf<T>;
    fill_value.assign(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  bool has_fill_value() const { return !fill_value.empty(); }
  // The fill value converted to double; 0 if none.
  double FillValueAsDouble() const;
  int64_t num_elements() const { return shape[0] * shape[1] * shape[2] * shape[3]; }

  bool operator==(const VariableMeta&) const = default;
};

// Values that label a dimension (1-D: lat, lon, time, level), a pair of them (2-D: the lat and
// lon of a curvilinear grid), or nothing (a scalar: the one time of a single-time file). Time units
// and calendar are attributes ("units", "calendar").
struct Coordinate {
  std::string name;
  std::vector<std::string> dimensions;  // 0 (a scalar), 1 or 2 source dimension names
  std::vector<int64_t> shape;           // one extent per dimension
  DataType type = DataType::kFloat64;   // the source's type, for faithful output
  std::vector<double> values;           // row-major, product(shape) values
  Attributes attributes;

  bool operator==(const Coordinate&) const = default;
};

// How the planes of every variable are cut into blocks and compressed. Fixed when the dataset is
// created: changing it after data is written is refused.
struct BlockLayout {
  int64_t block_x = 256;
  int64_t block_y = 256;
  CodecOptions codec;
  // Rows (along x) per independently compressed frame of a block, so that reading a few rows
  // decompresses only their frames; in [0, 2^20]. 0, or at least the block's rows, means one
  // frame: the unframed block format, as written before frames existed.
  int64_t frame_rows = 0;

  bool operator==(const BlockLayout&) const = default;
};

// The block shape imports choose unless told (docs/design/blocks-and-layouts.md, "Block shape").
// An embedded store reads a value whole, in one in-process call whose cost follows its bytes, so
// its blocks are small: 64 x 128 (32 KiB of float32, four frames of 16 rows), and a point read
// reads 32 KiB per step, not 256 KiB. A distributed store (RADOS) pays a round trip per value, so
// its blocks stay 256 x 256. Frames, codec and dictionary are BlockLayout's defaults.
inline constexpr int64_t kEmbeddedBlockX = 64, kEmbeddedBlockY = 128;
inline constexpr int64_t kDistributedBlockSide = 256;
BlockLayout DefaultBlockLayout(bool distributed);

// The layout for planes of one row (a cell axis: geo/coordinates.h kUnstructured): a default
// block shape (either DefaultBlockLayout's) would cut them into blocks of one row of 128 or 256
// values, so it becomes one row of as many values (1x8192, 1x65536). Any other layout, chosen by
// the user, stays as given.
BlockLayout ForOneRowPlanes(BlockLayout layout);

// The optional second layout of every variable of a dataset: blocks that run along t over a small
// (x, y) tile, so that a point or small-area time series reads one block per level and
// `block_t` steps instead of one block per step (docs/format.md, "Series layout"). Each block
// holds the tile's points as rows (row = x_local * tile_y + y_local) and the steps as columns,
// framed `frame_points` rows at a time so that one point decodes only its frame. Written by
// GridStore::AddSeriesLayout from the planes; fetches use it only once `ready`.
struct SeriesLayout {
  int64_t block_t = 256;  // steps per block (the last block of a variable may hold fewer)
  int64_t tile_x = 16;    // points per block along x and y
  int64_t tile_y = 16;
  // Levels per block (the last block may hold fewer). With more than one, a block's rows are
  // (point, level) pairs, point-major: a point's series at every level of the block (a
  // time-height section) lies in consecutive rows, so it decodes one or two frames.
  int64_t block_z = 1;
  int64_t frame_points = 16;  // rows (one point's steps at one level) per compressed frame
  // Every block is written. Until then (a relayout in progress, or one that died: run it
  // again to resume) fetches read the planes only.
  bool ready = false;
  // The steps the series blocks hold: kSeriesAllSteps (every step of each variable: a layout
  // written for a finished dataset), or, for a run still growing, steps [0, steps) of each
  // variable, whole blocks of block_t only (GridStore writes the next block of steps once every
  // one of them is complete, in the write that says so). Fetches read later steps from the
  // planes.
  int64_t steps = -1;

  // The steps of a variable of `t` steps that its series blocks hold.
  int64_t StepsHeld(int64_t t) const { return steps < 0 ? t : std::min(steps, t); }

  bool operator==(const SeriesLayout&) const = default;
};
inline constexpr int64_t kSeriesAllSteps = -1;

// The steps per series block of a run that grows (one written as its steps arrive) unless
// given: a 48-step meteogram reads 3 series blocks, and a block of steps is written every 16.
inline constexpr int64_t kGrowingSeriesSteps = 16;

// "256 steps x 16x16 points, frames of 16 points".
std::string SeriesLayoutToString(const SeriesLayout& series);

// Values of a SeriesLayout field that GridStore::AddSeriesLayout replaces by its choice for the
// dataset (the steps per block following its series, the points per block and frame shrinking
// as the series grows; a series of at most 256 steps gets the defaults above). A stored layout
// never holds them.
inline constexpr int64_t kSeriesChoose = 0;
// block_t only: every step of the longest series in one block (at most 2^20 steps).
inline constexpr int64_t kSeriesWholeSeries = -1;

// The attribute `name` if it is a string, else "" (absent, or a number or bool).
std::string StringAttribute(const Attributes& attributes, std::string_view name);

// The type of a variable's unpacked values (FetchOptions::unpack): the packing attributes' type
// for a packed variable (CF), its own type if floating-point, else float64.
DataType UnpackedType(const VariableMeta& var);

inline constexpr std::string_view kStatusAttribute = "status";
inline constexpr std::string_view kCreateTimeAttribute = "create_time";
inline constexpr std::string_view kStatusInit = "INIT";
inline constexpr std::string_view kStatusDone = "DONE";
// A run still arriving: each variable's complete_steps may be read, the rest not yet.
inline constexpr std::string_view kStatusIngesting = "INGESTING";

// Version 2 added the layout's frame_rows; version-1 metas decode with frame_rows = 0.
// Version 3 added the generation and the incarnation in data keys; older metas decode with
// generation 0 and incarnation_in_keys false. Version 4 added each variable's complete_steps;
// older metas decode with none. Version 5 added the series layout; older metas have none.
// Version 6 added the series layout's block_z; version-5 metas decode with 1. Version 7 added
// compact coordinate values (a regular axis as start + step, whole numbers as deltas). A meta is
// written with the oldest version that holds it (6 only for block_z above 1, 7 only for an axis of
// at least 256 values in a compact form, 8 only for a growing series layout), so older builds
// read the rest. Version 8 added the series layout's steps (SeriesLayout::steps); older metas
// decode with kSeriesAllSteps.
inline constexpr uint32_t kMetaFormatVersion = 8;

// "256x256, shuffle-zstd:3" or, framed, "256x256, shuffle-zstd:3, frames of 16 rows".
std::string BlockLayoutToString(const BlockLayout& layout);

struct DataSetMeta {
  std::string id;
  std::vector<VariableMeta> variables;
  std::vector<Coordinate> coordinates;
  Attributes attributes;  // typed user attributes, including status and create_time
  BlockLayout layout;
  // The second, time-major layout, if the dataset has one. Set only by GridStore's relayout
  // (AddSeriesLayout / DropSeriesLayout); metas written with PutDataSetMeta keep the stored one.
  std::optional<SeriesLayout> series;
  // Identifies this incarnation of the dataset: its blocks are keyed by it, and a dataset
  // deleted and re-created, or replaced by `import --overwrite`, gets a new one. Set by
  // GridStore when the dataset is first stored. Callers leave it alone.
  uint64_t incarnation = 0;
  // Counts the writes of this meta (1 when first stored); set by GridStore, so that a reader
  // can tell a cached meta from a newer one. Callers leave it alone.
  uint64_t generation = 0;
  // False only for datasets written before data keys carried the incarnation (they stay
  // readable); set by GridStore.
  bool incarnation_in_keys = true;

  // The incarnation this dataset's data keys carry (BlockAddress::incarnation).
  uint64_t key_incarnation() const { return incarnation_in_keys ? incarnation : 0; }

  // Null if there is no such variable / coordinate.
  const VariableMeta* FindVariable(std::string_view name) const;
  VariableMeta* FindVariable(std::string_view name);
  const Coordinate* FindCoordinate(std::string_view name) const;

  // The "status" attribute if it is a string, else "".
  std::string status() const;
  void set_status(std::string_view status);

  // Checks everything a store relies on: a valid id (a meta may have no variables: a data-less
  // catalogue entry), unique valid variable
  // names, valid types, every extent in [1, 2^31), fill values of the variable's size, packing
  // types floating-point, coordinates whose values match their shape, a block shape in [1, 2^20],
  // frame_rows in [0, 2^20], valid codec options and a series layout whose sides are in
  // [1, 2^20]. InvalidArgument naming the offending variable / field otherwise.
  Status Validate() const;

  // Appends the stored form to *dst.
  void EncodeTo(std::string* dst) const;
  std::string Encode() const {
    std::string s;
    EncodeTo(&s);
    return s;
  }
  // Parses the stored form. DataLoss if malformed or truncated; Unimplemented if written by a
  // newer format version than this build reads.
  static Result<DataSetMeta> Decode(std::string_view bytes);
  // Parses only the header and the dataset's `attributes` (they precede variables and
  // coordinates, so meta queries skip the rest); *attributes is replaced. Errors as Decode, for
  // the part read; the rest of the bytes is not checked.
  static Status DecodeAttributes(std::string_view bytes, Attributes* attributes);
  // As above, keeping only the attributes named in `keep` (sorted, unique): a meta query decodes
  // only the attributes it tests and sorts by. The others are checked as they are skipped.
  static Status DecodeAttributes(std::string_view bytes, const std::vector<std::string>& keep,
                                 Attributes* attributes);

  bool operator==(const DataSetMeta&) const = default;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_GRID_META_H_
