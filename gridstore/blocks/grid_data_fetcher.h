// Copyright 2026 The GridStore Authors.
//
// GridDataFetcher reads a 4-D box over (t, z, x, y) of chosen variables of one dataset. Fetch
// validates the request, plans the blocks that cover the box, reads them with batched MultiGets,
// decompresses them in parallel on the store's thread pool, and copies only the overlap of each
// block into the result, row by row. Blocks never written read as the variable's fill value.
//
// A fetcher is cheap. Its Fetch(request) calls are thread-safe (the setters' request is not:
// one thread per fetcher for those); any number of fetchers of one store may run at once, also
// while writers write.
#ifndef GRIDSTORE_BLOCKS_GRID_DATA_FETCHER_H_
#define GRIDSTORE_BLOCKS_GRID_DATA_FETCHER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

// Which layout a fetch reads (grid_meta.h, SeriesLayout).
enum class FetchLayout {
  kCheapest,  // per variable, the one with the lower cost (blocks and bytes to decode)
  kPlanes,    // the planes
  kSeries,    // the series layout; FailedPrecondition if the dataset has none ready
};

struct FetchOptions {
  // Return floating-point values: stored * scale_factor + add_offset for packed variables, and NaN
  // where the stored value is the fill value or a missing value. The result type is the packing
  // attributes' type for packed variables, the variable's own type for floating-point ones, and
  // float64 for other integer variables. If false, values come back exactly as stored.
  bool unpack = false;
  // Threads working on one fetch (the caller plus pool workers); 0 means the pool's size + 1.
  int parallelism = 0;
  // Serve and fill the store's decompressed-block cache.
  bool use_cache = true;
  // Read a dataset that is not complete: one whose status is not DONE (an import in progress,
  // or one that died). Blocks not written yet read as the fill value. If false, Fetch of such a
  // dataset is FailedPrecondition naming the dataset and its status, so that fill values are
  // never mistaken for data. A run still arriving (status INGESTING) reads its complete steps
  // (VariableMeta::complete_steps) without the flag; a box reaching any other step is refused.
  bool allow_incomplete = false;
  // The planner's choice, or a forced one (benchmarks, comparisons).
  FetchLayout layout = FetchLayout::kCheapest;
};

// What a fetch will do, computed without reading any block.
struct FetchPlan {
  struct Variable {
    std::string name;
    DataType type = DataType::kFloat32;
    Shape4 origin = {0, 0, 0, 0};
    Shape4 shape = {0, 0, 0, 0};
    // The layout read: "plane", or "series" when the dataset has a series layout (ready) and
    // reading the box from it costs less (blocks and bytes to decode).
    std::string layout = "plane";
    int64_t blocks = 0;           // blocks the box touches, in the layout read
    int64_t bytes_to_decode = 0;  // raw bytes decompressed: the frames holding the box's values
    int64_t bytes_returned = 0;   // bytes of the result (stored type)
    // Both layouts' costs; the series' are -1 without a (ready) series layout.
    int64_t plane_blocks = 0, plane_bytes_to_decode = 0;
    int64_t series_blocks = -1, series_bytes_to_decode = -1;
  };
  // "plane blocks 256x256, shuffle-zstd:3, frames of 16 rows[; series blocks 256 steps x 16x16
  // points, frames of 16 points]"
  std::string layout;
  std::vector<Variable> variables;
  int64_t blocks = 0;
  int64_t bytes_to_decode = 0;
  int64_t bytes_returned = 0;
};

// What a batched read of `boxes` of each of `vars` (FetchBoxes) would read, from `meta` alone:
// per variable the layout the planner picks (`layout`: the planner's choice or a forced one)
// and the blocks and bytes that layout decodes. A block two boxes share counts once.
FetchPlan ExplainBoxes(const DataSetMeta& meta, const std::vector<const VariableMeta*>& vars,
                       const std::vector<Box>& boxes, FetchLayout layout = FetchLayout::kCheapest);

// What one fetch reads.
struct FetchRequest {
  // Variables to read, by name; empty means every variable of the dataset.
  std::vector<std::string> variables;
  // The box to read, over (t, z, x, y); none means each variable whole.
  std::optional<Box> box;
  FetchOptions options;
};

// Reads boxes of one dataset, against the meta it was made with (GridStore::GetDataFetcher).
// Stateless between calls: any number of requests may be issued, also from several threads at
// once.
class GridDataFetcher {
 public:
  virtual ~GridDataFetcher();
  GridDataFetcher(const GridDataFetcher&) = delete;
  GridDataFetcher& operator=(const GridDataFetcher&) = delete;

  // Reads the box of every chosen variable. Errors: FailedPrecondition if the dataset is not
  // complete (see FetchOptions::allow_incomplete); InvalidArgument for a dataset without
  // variables, an unknown or repeated variable, or a negative origin or a shape below 1 (naming
  // variable, axis and value); OutOfRange if the box does not fit inside a variable (naming
  // variable, axis, dimension, origin, shape and extent); DataLoss for a corrupt block (naming
  // dataset, variable, t, z and block); NotFound or Aborted if the dataset was deleted or replaced
  // while it was read (its blocks vanished, and fill values would stand in for them); the store's
  // own errors otherwise.
  virtual Result<GridDataSet> Fetch(const FetchRequest& request) const = 0;

  // Reads `boxes` of every chosen variable in one batched read: each block that any box touches
  // is read and decoded once, however many boxes need it (1,000 scattered points cost one read
  // of the blocks they lie in, not 1,000 fetches). Result i holds box i; every result's stats
  // are the whole read's. request.box is ignored. Errors as Fetch.
  virtual Result<std::vector<GridDataSet>> FetchBoxes(const FetchRequest& request,
                                                      const std::vector<Box>& boxes) const = 0;

  // Validates the request as Fetch does and returns the plan, reading nothing.
  virtual Result<FetchPlan> Explain(const FetchRequest& request) const = 0;

  // The dataset's meta this fetcher reads against.
  virtual const DataSetMeta& meta() const = 0;

  // The Tablestore-Grid style the samples use: setters building a request this object keeps,
  // and the calls above on it.
  void SetVariablesToGet(std::vector<std::string> variables) {
    request_.variables = std::move(variables);
  }
  void SetOriginShape(const Shape4& origin, const Shape4& shape) {
    request_.box = Box{origin, shape};
  }
  void ClearOriginShape() { request_.box.reset(); }
  void set_options(const FetchOptions& options) { request_.options = options; }
  const FetchOptions& options() const { return request_.options; }
  Result<GridDataSet> Fetch() const { return Fetch(request_); }
  Result<std::vector<GridDataSet>> FetchBoxes(const std::vector<Box>& boxes) const {
    return FetchBoxes(request_, boxes);
  }
  Result<FetchPlan> Explain() const { return Explain(request_); }

 protected:
  GridDataFetcher() = default;

 private:
  FetchRequest request_;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_GRID_DATA_FETCHER_H_
