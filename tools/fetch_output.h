// Copyright 2026 The GridStore Authors.
//
// Writes a `gridstore fetch` to an nc, npy or csv output slab by slab (model/slabs.h): one fetch
// per slab of at most a budget of bytes, each slab appended to the output as it arrives, so that
// memory stays bounded whatever the size of the output (issue 18). A result within the budget is
// one slab: one fetch, as before. The bytes written are those of writing the whole result at
// once (formats/: WriteNpy, WriteCsv, WriteNetCdf).
#ifndef GRIDSTORE_TOOLS_FETCH_OUTPUT_H_
#define GRIDSTORE_TOOLS_FETCH_OUTPUT_H_

#include <cstdint>
#include <string>

#include "gridstore/blocks/grid_data_fetcher.h"
#include "gridstore/formats/output_format.h"
#include "gridstore/util/status.h"
#include "tools/output_file.h"

namespace gridstore::tools {

// Bytes of fetched values held at once by default: with the blocks being decoded and the store's
// caches, a fetch stays well under 256 MiB of memory.
inline constexpr int64_t kDefaultSlabBytes = int64_t{64} << 20;

// Fetches what `plan` (fetcher.Explain()) describes with `fetcher` (its variables and box are
// changed) and writes it to `out` in `format` (nc, npy or csv; InvalidArgument otherwise), at
// most `slab_bytes` bytes of values per fetch; commits `out`. On failure `out` is left as it was.
Status WriteFetchOutput(formats::OutputFormat format, const grid::FetchPlan& plan, bool unpacked,
                        int64_t slab_bytes, grid::GridDataFetcher& fetcher, OutputFile& out);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_FETCH_OUTPUT_H_
