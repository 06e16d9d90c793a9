// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/compression_unit.h"

// ZSTD_getCParams: the parameters zstd would pick for a given input size (framed blocks).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cstring>
#include <string>
#include <utility>

#include "gridstore/blocks/internal/byte_shuffle.h"

namespace gridstore::grid {
namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  return cctx.get();
}

ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
  return dctx.get();
}

Status ZstdError(size_t code) {
  return Status::DataLoss(std::string("zstd: ") + ZSTD_getErrorName(code));
}

}  // namespace

Scratch& EncodeScratch() {
  thread_local Scratch scratch;
  return scratch;
}
Scratch& DecodeScratch() {
  thread_local Scratch scratch;
  return scratch;
}

Status CompressUnit(const CodecOptions& options, size_t element_size, const char* src, size_t n,
                    size_t params_size, const ZSTD_CDict* cdict, char* dst, size_t capacity,
                    size_t* written) {
  if (options.codec == Codec::kNone) {
    std::memcpy(dst, src, n);
    *written = n;
    return Status::OK();
  }
  Scratch& scratch = EncodeScratch();
  if (options.codec == Codec::kShuffleZstd && element_size > 1) {
    char* shuffled = scratch.Get(n);
    if (shuffled == nullptr) return Status::Internal("out of memory shuffling a block");
    ShuffleBytes(src, shuffled, n, element_size);
    src = shuffled;
  }
  ZSTD_CCtx* cctx = ThreadCCtx();
  if (cctx == nullptr) return Status::Internal("zstd: cannot create a compression context");
  // Parameters set for an earlier unit must not leak into this one.
  size_t rc = ZSTD_CCtx_reset(cctx, ZSTD_reset_parameters);
  if (cdict != nullptr) {
    // Attached, not copied: zstd copies the dictionary's tables into the context for every frame
    // over 16 KB (level 3), which made frames of 32 or 64 rows cost 10-15% more CPU for the same
    // bytes (docs/benchmarks.md, "Frames, dictionaries and the import's CPU").
    if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_refCDict(cctx, cdict);
    if (!ZSTD_isError(rc)) {
      rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_forceAttachDict, ZSTD_dictForceAttach);
    }
    if (!ZSTD_isError(rc)) rc = ZSTD_compress2(cctx, dst, capacity, src, n);
    if (ZSTD_isError(rc)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(rc));
    *written = rc;
    return Status::OK();
  }
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.level);
  if (params_size != n) {
    const ZSTD_compressionParameters p = ZSTD_getCParams(options.level, params_size, 0);
    const std::pair<ZSTD_cParameter, int> params[] = {
        {ZSTD_c_windowLog, static_cast<int>(p.windowLog)},
        {ZSTD_c_chainLog, static_cast<int>(p.chainLog)},
        {ZSTD_c_hashLog, static_cast<int>(p.hashLog)},
        {ZSTD_c_searchLog, static_cast<int>(p.searchLog)},
        {ZSTD_c_minMatch, static_cast<int>(p.minMatch)},
        {ZSTD_c_targetLength, static_cast<int>(p.targetLength)},
        {ZSTD_c_strategy, static_cast<int>(p.strategy)}};
    for (const auto& [param, value] : params) {
      if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx, param, value);
    }
  }
  if (!ZSTD_isError(rc)) rc = ZSTD_compress2(cctx, dst, capacity, src, n);
  if (ZSTD_isError(rc)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(rc));
  *written = rc;
  return Status::OK();
}

namespace {

// zstd of `unit` into exactly dst[0, n): a frame that decodes to more is an error (the work and
// memory stay bounded whatever it claims), to less as well.
Status ZstdDecompressExact(std::string_view unit, char* dst, size_t n, const ZSTD_DDict* ddict) {
  ZSTD_DCtx* dctx = ThreadDCtx();
  if (dctx == nullptr) return Status::Internal("zstd: cannot create a decompression context");
  const size_t got = ddict != nullptr
                         ? ZSTD_decompress_usingDDict(dctx, dst, n, unit.data(), unit.size(), ddict)
                         : ZSTD_decompressDCtx(dctx, dst, n, unit.data(), unit.size());
  if (ZSTD_isError(got)) return ZstdError(got);
  if (got != n) {
    return Status::DataLoss("zstd: decompressed " + std::to_string(got) + " bytes, expected " +
                            std::to_string(n));
  }
  return Status::OK();
}

}  // namespace

Status DecompressUnit(Codec codec, size_t element_size, std::string_view unit, char* dst, size_t n,
                      const ZSTD_DDict* ddict) {
  if (codec == Codec::kNone) {
    // The header parser checked the size already.
    std::memcpy(dst, unit.data(), n);
    return Status::OK();
  }
  if (codec != Codec::kShuffleZstd || element_size == 1) {
    return ZstdDecompressExact(unit, dst, n, ddict);
  }
  const char* shuffled = nullptr;
  GRIDSTORE_RETURN_IF_ERROR(DecompressUnitShuffled(codec, unit, n, ddict, &shuffled));
  UnshuffleBytes(shuffled, dst, n, element_size);
  return Status::OK();
}

Status DecompressUnitShuffled(Codec codec, std::string_view unit, size_t n, const ZSTD_DDict* ddict,
                              const char** bytes) {
  if (codec == Codec::kNone) {
    *bytes = unit.data();  // the header parser checked the size already
    return Status::OK();
  }
  char* target = DecodeScratch().Get(n);
  if (target == nullptr) return Status::Internal("out of memory decoding a block");
  GRIDSTORE_RETURN_IF_ERROR(ZstdDecompressExact(unit, target, n, ddict));
  *bytes = target;
  return Status::OK();
}

}  // namespace gridstore::grid
