// Copyright 2026 The GridStore Authors.
//
// A GRIB file (edition 1 or 2) read through ecCodes, message by message: Scan reads every field's
// header (no values), Next then walks the fields again in the same order and decodes each one's
// values. The only code that calls ecCodes.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_FILE_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_FILE_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gridstore/importers/grib/internal/grib2_unpack.h"
#include "gridstore/util/result.h"

struct grib_handle;  // ecCodes' codes_handle

namespace gridstore::internal_importers {

// What a field says about itself: enough to place it in a dataset without decoding its values.
struct GribField {
  int number = 0;  // 1-based position in the file (fields of a multi-field message count apart)
  long edition = 0;
  std::string short_name, name, units, cf_name;
  long param_id = 0;
  std::string type_of_level;
  double level = 0;
  // instant, avg, accum, max, min, diff... (ecCodes' stepType): the same parameter as an
  // average and as an instant value are two variables (as cfgrib has them).
  std::string step_type;
  long data_date = 0, data_time = 0;          // the reference time: YYYYMMDD, HHMM
  long validity_date = 0, validity_time = 0;  // the time it is valid at
  long member = -1;                           // perturbationNumber, or -1 if the field has none
  long ensemble_size = 0;                     // numberOfForecastsInEnsemble, 0 if none
  std::string grid_type;
  long ni = 0, nj = 0;  // points along a row and rows; 0 if not given (reduced grids)
  long num_values = 0;
  bool j_consecutive = false;  // jPointsAreConsecutive: values run down columns
  std::string grid_md5;        // md5GridSection: the same for fields on the same grid
  long centre = 0;
  std::string centre_name;
  std::string centre_abbreviation;  // ecCodes' string value of "centre": "ecmf", "kwbc"
  // What kind of product: ecCodes' dataType (an, fc, cf, pf, af...; MARS type), and GRIB2's
  // typeOfProcessedData (for when dataType is not defined). Empty if absent.
  std::string data_type, type_of_processed_data;
  int file = 0;  // which of the import's files holds it (GribFile::Scan's `file` argument)
  // The grid's definition (ecCodes keys such as LaDInDegrees, radius), for the CF grid mapping;
  // read for the first field of a file only.
  std::map<std::string, double> grid_keys;

  // "field 3 ('t', isobaricInhPa 850)" for messages.
  std::string Describe() const;
};

// One field read but not decoded: decoding (the costly part) may run on another thread, since
// ecCodes decodes different handles concurrently.
class GribMessage {
 public:
  ~GribMessage();
  GribMessage(const GribMessage&) = delete;
  GribMessage& operator=(const GribMessage&) = delete;
  // The field's values in ecCodes' order (after the scanning mode), NaN where the bitmap says
  // missing; *lats and *lons (if not null) get the latitude and longitude of every point.
  Status Decode(std::vector<double>* values, std::vector<double>* lats = nullptr,
                std::vector<double>* lons = nullptr) const;
  // The field's values straight into a plane of T (float or double): Decode's doubles rounded
  // to T. GRIB2 simple and complex packing are unpacked by our own code (grib2_unpack.h), the
  // rest by ecCodes. DataLoss if the field does not have exactly out.size() points.
  template <typename T>
  Status DecodeInto(std::span<T> out) const;
  int number() const { return number_; }  // 1-based position in its file
  const std::string& path() const { return path_; }

 private:
  friend class GribFile;
  GribMessage(grib_handle* h, std::string path, int number)
      : handle_(h), path_(std::move(path)), number_(number) {}
  // How its values are packed, if grib2_unpack.h reads them (nullopt: ecCodes does).
  Result<std::optional<Grib2Packing>> OwnPacking() const;
  // The values through ecCodes: NaN where the bitmap says missing.
  Status DecodeWithEcCodes(std::vector<double>* values) const;
  // "'path': field N".
  std::string Where() const;

  grib_handle* handle_;
  std::string path_;  // its file's, for messages
  int number_;
};

// The decoded grid of a field: values in ecCodes' order (after the scanning mode), NaN where
// the bitmap says missing, and the latitude/longitude of every point.
class GribFile {
 public:
  // Opens `path`. NotFound / FailedPrecondition naming the file if it cannot be opened;
  // FailedPrecondition if ecCodes cannot be loaded.
  static Result<std::unique_ptr<GribFile>> Open(const std::string& path);
  ~GribFile();

  // Every field's header, in file order; the file is then rewound for Next. DataLoss naming the
  // file and field for a truncated or corrupt message (its structure is checked before ecCodes
  // reads it: grib_structure.h); InvalidArgument if it holds no GRIB.
  // `file` is stored in every field (GribField::file).
  Result<std::vector<GribField>> Scan(int file = 0);
  // Decodes the next field's values (NaN where missing), in Scan's order; *latlon (if not null)
  // also gets the latitudes and longitudes of every point.
  Status Next(std::vector<double>* values, std::vector<double>* lats = nullptr,
              std::vector<double>* lons = nullptr);

  // The next field, in Scan's order, to be decoded later (on any thread, also after this file
  // is closed); DataLoss if the file has no more.
  Result<std::unique_ptr<GribMessage>> NextMessage();
  // Back to the first field, for Next.
  Status Rewind();

  const std::string& path() const { return path_; }
  // What Scan noticed without failing: bytes outside any message (WMO headers, junk).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  GribFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::FILE* file_;
  int next_ = 0;  // fields returned by Next so far
  std::vector<std::string> notes_;
};

// True if the file at `path` starts with a GRIB message: "GRIB" and edition 1 or 2 in its first
// KiB (at the start, or after a WMO bulletin header), and no NetCDF or HDF5 signature first.
bool LooksLikeGrib(const std::string& path);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_FILE_H_
