// Copyright 2026 The GridStore Authors.
//
// Fetched slices (blocks/grid_data_fetcher.h) as npy, CSV and JSON (NetCDF:
// netcdf/netcdf_exporter.h): npy for one variable in its stored type, and csv / json rows for
// small slices, one row per grid point with its indices, its coordinate values and the value of
// every fetched variable. CSV fields are escaped as every CSV of GridStore is (CsvField).
#ifndef GRIDSTORE_FORMATS_FETCH_FORMATS_H_
#define GRIDSTORE_FORMATS_FETCH_FORMATS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

// csv and json are for small slices: more values than this is InvalidArgument (use nc or npy).
inline constexpr int64_t kMaxTextValues = 5'000'000;

// The column names of csv and json rows. Variables keep their names. The index columns are "@t",
// "@z", "@x", "@y" (netCDF names cannot start with '@', so an imported variable never has one of
// them), and the coordinate (label) columns their coordinates' names; a name that an earlier
// column already has (variables first, then @t @z @x @y, then labels in order) gets one more '@'
// in front until it is unique. So no two columns ever share a name.
struct ColumnNames {
  std::array<std::string, grid::kRank> index;
  std::vector<std::string> labels;
};
ColumnNames MakeColumnNames(const std::vector<std::string>& variables,
                            const std::vector<std::string>& labels);

// A NumPy .npy (format 1.0) file: shape (t, z, x, y), little-endian, the grid's own type.
Status WriteNpy(const grid::Grid4D& grid, std::ostream& out);
// The header of WriteNpy alone, for values of `type` and `shape` that follow in row-major order
// (written slab by slab: model/slabs.h).
Status WriteNpyHeader(grid::DataType type, const grid::Shape4& shape, std::ostream& out);

// Rows "@t,@z,@x,@y,<coordinate names...>,<variable names...>" (MakeColumnNames; a name with a
// comma, a quote, CR, LF or an outer space is quoted as RFC 4180 says). Every variable must have
// the same origin, shape and dimensions (InvalidArgument naming two that differ).
Status WriteCsv(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out);

// WriteCsv slab by slab (model/slabs.h): the header row, then each slab's rows as they come; the
// same bytes as WriteCsv of the whole box. Nothing is written before the first slab, so that a
// fetch refused at once writes nothing to a stream.
class CsvSlabWriter {
 public:
  // One variable of the box: its name, and the box its fetch returns.
  struct Variable {
    std::string name;
    grid::Box box;
  };
  // Checks the variables as WriteCsv does; writes nothing yet.
  static Result<std::unique_ptr<CsvSlabWriter>> Start(const grid::DataSetMeta& meta,
                                                      const std::vector<Variable>& variables,
                                                      std::ostream& out);
  ~CsvSlabWriter();
  // The rows of `slab` (the header row first): every variable over one slab of the box, slabs
  // in row-major order.
  Status Write(const grid::GridDataSet& slab);

 private:
  struct Rows;
  CsvSlabWriter(std::unique_ptr<Rows> rows, std::ostream& out);
  std::unique_ptr<Rows> rows_;
  std::ostream& out_;
  bool header_written_ = false;
};

// {"dataset": ID, "variables": {NAME: {type, origin, shape, dimensions, units}}, "index_columns":
// ["@t", "@z", "@x", "@y"], "rows": [{"@t":.., "@z":.., "@x":.., "@y":.., <coordinate>: ..,
// <variable>: ..}, ...]} with the column names of MakeColumnNames; NaN is null; bytes of names
// that are not UTF-8 are written as U+FFFD.
Status WriteJson(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_FETCH_FORMATS_H_
