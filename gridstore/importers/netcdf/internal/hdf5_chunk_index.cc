// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/hdf5_chunk_index.h"

#include <netcdf.h>

#include <utility>

#include "gridstore/importers/netcdf/internal/hdf5_api.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"

namespace gridstore::internal_importers {

namespace {

// An HDF5 identifier, closed when destroyed (under the caller's NetCdfMutex).
class ScopedHdf5Id {
 public:
  ScopedHdf5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~ScopedHdf5Id() {
    if (id_ >= 0) close_(id_);
  }
  ScopedHdf5Id(const ScopedHdf5Id&) = delete;
  ScopedHdf5Id& operator=(const ScopedHdf5Id&) = delete;
  bool ok() const { return id_ >= 0; }
  hid_t get() const { return id_; }

 private:
  const hid_t id_;
  herr_t (*const close_)(hid_t);
};

// True if `type` is stored so that reading it as the native type of `element_size` bytes is at
// most a byte swap (HDF5 would otherwise convert values): whole-width integers, and IEEE floats.
bool IsPlainNumber(hid_t type, size_t element_size, bool* big_endian, std::string* why_not) {
  const H5T_class_t cls = hdf5::H5Tget_class(type);
  const H5T_order_t order = hdf5::H5Tget_order(type);
  if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || hdf5::H5Tget_size(type) != element_size ||
      hdf5::H5Tget_precision(type) != 8 * element_size || hdf5::H5Tget_offset(type) != 0 ||
      (order != H5T_ORDER_LE && order != H5T_ORDER_BE)) {
    *why_not = "its HDF5 type is not a plain little- or big-endian number";
    return false;
  }
  if (cls == H5T_FLOAT) {
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    const bool ieee32 = element_size == 4 && hdf5::H5Tget_ebias(type) == 127;
    const bool ieee64 = element_size == 8 && hdf5::H5Tget_ebias(type) == 1023;
    if (hdf5::H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0 ||
        !((ieee32 && spos == 31 && epos == 23 && esize == 8 && mpos == 0 && msize == 23) ||
          (ieee64 && spos == 63 && epos == 52 && esize == 11 && mpos == 0 && msize == 52))) {
      *why_not = "its HDF5 type is not an IEEE float";
      return false;
    }
  }
  *big_endian = order == H5T_ORDER_BE;
  return true;
}

// The chunked layout and filters of a dataset's creation properties, if GridStore decodes them.
bool ReadCoding(hid_t dcpl, size_t rank, std::vector<uint64_t>* chunk, ChunkCoding* coding,
                std::string* why_not) {
  if (hdf5::H5Pget_layout(dcpl) != H5D_CHUNKED) {
    *why_not = "it is not chunked";
    return false;
  }
  std::vector<hsize_t> extents(rank, 0);
  if (hdf5::H5Pget_chunk(dcpl, static_cast<int>(rank), extents.data()) != static_cast<int>(rank)) {
    *why_not = "HDF5 did not give its chunk shape";
    return false;
  }
  chunk->assign(extents.begin(), extents.end());
  const int nfilters = hdf5::H5Pget_nfilters(dcpl);
  if (nfilters < 0 || nfilters > 32) {
    *why_not = "HDF5 did not list its filters";
    return false;
  }
  for (int i = 0; i < nfilters; ++i) {
    unsigned flags = 0, config = 0, values[8] = {};
    size_t nvalues = 8;
    char name[64] = {};
    const H5Z_filter_t id = hdf5::H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues,
                                                 values, sizeof(name), name, &config);
    if (id == H5Z_FILTER_DEFLATE) {
      coding->filters.push_back({ChunkFilter::Kind::kDeflate, 0});
    } else if (id == H5Z_FILTER_SHUFFLE && nvalues >= 1) {
      coding->filters.push_back({ChunkFilter::Kind::kShuffle, values[0]});
    } else {
      *why_not = "it has a filter other than deflate and shuffle (" + std::string(name) + ")";
      return false;
    }
  }
  return true;
}

// Fills index->chunks (`count` of them) with each chunk's address, size and filter mask.
bool LocateChunks(hid_t dset, size_t count, ChunkIndex* index) {
  const size_t rank = index->dims.size();
  index->chunks.resize(count);
  std::vector<hsize_t> offset(rank, 0);
  for (size_t c = 0; c < count; ++c) {
    for (size_t i = rank, rest = c; i-- > 0; rest /= index->grid[i]) {
      offset[i] = (rest % index->grid[i]) * index->chunk[i];
    }
    unsigned mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    if (hdf5::H5Dget_chunk_info_by_coord(dset, offset.data(), &mask, &address, &size) < 0) {
      return false;
    }
    if (address != HADDR_UNDEF && size > 0) index->chunks[c] = {address, size, mask};
  }
  return true;
}

// True if the file has no user block (chunk addresses are relative to the superblock, which a
// user block moves).
bool HasNoUserBlock(hid_t file) {
  ScopedHdf5Id fcpl(hdf5::H5Fget_create_plist(file), hdf5::H5Pclose);
  hsize_t user_block = 1;
  return fcpl.ok() && hdf5::H5Pget_userblock(fcpl.get(), &user_block) >= 0 && user_block == 0;
}

}  // namespace

std::optional<ChunkIndex> ListChunks(int ncid, const std::string& path, const NcVariable& v,
                                     size_t element_size, size_t max_chunks, std::string* why_not) {
  if (Status loaded = LoadHdf5(); !loaded.ok()) {
    *why_not = loaded.message();
    return std::nullopt;
  }
  int format = 0, mode = 0;
  if (netcdf::nc_inq_format_extended(ncid, &format, &mode) != NC_NOERR ||
      format != NC_FORMATX_NC4) {
    *why_not = "the file is not netCDF-4 (HDF5)";
    return std::nullopt;
  }
  ScopedHdf5Id file(hdf5::H5Fopen(path.c_str(), hdf5::kFileReadOnly, H5P_DEFAULT), hdf5::H5Fclose);
  if (!file.ok()) {
    *why_not = "HDF5 did not open the file";
    return std::nullopt;
  }
  if (!HasNoUserBlock(file.get())) {
    *why_not = "the file has a user block";
    return std::nullopt;
  }
  if (hdf5::H5Lexists(file.get(), v.name.c_str(), H5P_DEFAULT) <= 0) {
    *why_not = "it is not an HDF5 dataset of the same name";
    return std::nullopt;
  }
  ScopedHdf5Id dset(hdf5::H5Dopen2(file.get(), v.name.c_str(), H5P_DEFAULT), hdf5::H5Dclose);
  ScopedHdf5Id space(dset.ok() ? hdf5::H5Dget_space(dset.get()) : -1, hdf5::H5Sclose);
  ScopedHdf5Id dcpl(dset.ok() ? hdf5::H5Dget_create_plist(dset.get()) : -1, hdf5::H5Pclose);
  ScopedHdf5Id type(dset.ok() ? hdf5::H5Dget_type(dset.get()) : -1, hdf5::H5Tclose);
  const size_t rank = v.dim_lengths.size();
  if (!space.ok() || !dcpl.ok() || !type.ok() ||
      hdf5::H5Sget_simple_extent_ndims(space.get()) != static_cast<int>(rank)) {
    *why_not = "its HDF5 dataset has another rank";
    return std::nullopt;
  }
  ChunkIndex index;
  std::vector<hsize_t> dims(rank, 0);
  hdf5::H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  index.dims.assign(dims.begin(), dims.end());
  for (size_t i = 0; i < rank; ++i) {
    // A variable shorter than its unlimited dimension reads as fill beyond its end.
    if (index.dims[i] != v.dim_lengths[i] || index.dims[i] == 0) {
      *why_not = "its HDF5 extent differs from its dimensions";
      return std::nullopt;
    }
  }
  index.coding.element_size = element_size;
  if (!ReadCoding(dcpl.get(), rank, &index.chunk, &index.coding, why_not) ||
      !IsPlainNumber(type.get(), element_size, &index.coding.big_endian, why_not)) {
    return std::nullopt;
  }
  size_t count = 1;
  index.coding.chunk_bytes = element_size;
  for (size_t i = 0; i < rank; ++i) {
    index.grid.push_back((index.dims[i] + index.chunk[i] - 1) / index.chunk[i]);
    count *= index.grid[i];
    index.coding.chunk_bytes *= index.chunk[i];
    if (count > max_chunks) {
      *why_not = "it has too many chunks";
      return std::nullopt;
    }
  }
  if (!LocateChunks(dset.get(), count, &index)) {
    *why_not = "HDF5 did not locate its chunks";
    return std::nullopt;
  }
  return index;
}

}  // namespace gridstore::internal_importers
