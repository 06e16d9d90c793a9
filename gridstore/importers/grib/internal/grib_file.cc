// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/internal/grib_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string_view>
#include <tuple>

#include "gridstore/importers/grib/internal/eccodes_api.h"
#include "gridstore/importers/grib/internal/grib_structure.h"
#include "gridstore/importers/internal/read_and_work.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

using eccodes::codes_get_double;
using eccodes::codes_get_long;
using eccodes::codes_get_string;

std::string GetString(codes_handle* h, const char* key) {
  char buffer[512];
  size_t length = sizeof(buffer);
  if (codes_get_string(h, key, buffer, &length) != 0) return "";
  std::string s(buffer, length > 0 ? length - 1 : 0);  // without the NUL
  return s == "unknown" || s == "not_found" ? "" : s;
}

long GetLong(codes_handle* h, const char* key, long otherwise) {
  long value = 0;
  if (eccodes::codes_is_defined(h, key) == 0) return otherwise;
  int err = 0;
  if (eccodes::codes_is_missing(h, key, &err) == 1) return otherwise;
  return codes_get_long(h, key, &value) == 0 ? value : otherwise;
}

Status Failed(const std::string& path, const std::string& what, int code) {
  return Status::DataLoss(Quote(path) + ": " + what + ": " +
                          eccodes::codes_get_error_message(code));
}

// Reads the next field's handle; null at the end of the file.
Result<codes_handle*> NextHandle(std::FILE* file, const std::string& path, int number) {
  int err = 0;
  codes_handle* h = eccodes::codes_handle_new_from_file(nullptr, file, PRODUCT_GRIB, &err);
  if (err != 0) {
    if (h != nullptr) eccodes::codes_handle_delete(h);
    return Failed(path, "GRIB field " + std::to_string(number) + " cannot be read", err);
  }
  return h;
}

Status GetDoubles(codes_handle* h, const char* key, std::vector<double>* out,
                  const std::string& path, int number) {
  size_t size = 0;
  int rc = eccodes::codes_get_size(h, key, &size);
  if (rc == 0) {
    out->resize(size);
    rc = eccodes::codes_get_double_array(h, key, out->data(), &size);
  }
  if (rc != 0) return Failed(path, "field " + std::to_string(number) + ": '" + key + "'", rc);
  return Status::OK();
}

}  // namespace

std::string GribField::Describe() const {
  return "field " + std::to_string(number) + " (" + Quote(short_name.empty() ? "?" : short_name) +
         ", " + (type_of_level.empty() ? "level" : type_of_level) + " " + FormatDouble(level) + ")";
}

Result<std::unique_ptr<GribFile>> GribFile::Open(const std::string& path) {
  GRIDSTORE_RETURN_IF_ERROR(LoadEcCodes());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int e = errno;
    const std::string why = std::strerror(e);
    if (e == ENOENT) return Status::NotFound(Quote(path) + ": no such file");
    return Status::FailedPrecondition(Quote(path) + ": cannot open: " + why);
  }
  return std::unique_ptr<GribFile>(new GribFile(path, f));
}

GribFile::~GribFile() { std::fclose(file_); }

Status GribFile::Rewind() {
  if (std::fseek(file_, 0, SEEK_SET) != 0) {
    return Status::FailedPrecondition(Quote(path_) + ": cannot seek back to its start");
  }
  next_ = 0;
  return Status::OK();
}

// The keys that define each kind of grid's projection and earth, where defined.
void ReadGridKeys(codes_handle* h, std::map<std::string, double>* keys) {
  static constexpr const char* kKeys[] = {"LaDInDegrees",
                                          "LoVInDegrees",
                                          "Latin1InDegrees",
                                          "Latin2InDegrees",
                                          "orientationOfTheGridInDegrees",
                                          "projectionCentreFlag",
                                          "latitudeOfSouthernPoleInDegrees",
                                          "longitudeOfSouthernPoleInDegrees",
                                          "angleOfRotationInDegrees",
                                          "radius",
                                          "earthMajorAxis",
                                          "earthMinorAxis",
                                          "shapeOfTheEarth"};
  for (const char* key : kKeys) {
    if (eccodes::codes_is_defined(h, key) == 0) continue;
    int err = 0;
    if (eccodes::codes_is_missing(h, key, &err) == 1) continue;
    double value = 0;
    if (codes_get_double(h, key, &value) == 0 && std::isfinite(value)) (*keys)[key] = value;
  }
}

namespace {

// shortName, name, units and cfName follow from paramId (ecCodes' parameter database), and each is
// a costly concept lookup: they are looked up once per parameter of a file.
class ParameterNames {
 public:
  void Fill(codes_handle* h, GribField* f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto known = f->param_id > 0 ? names_.find(f->param_id) : names_.end();
      if (known != names_.end()) {
        std::tie(f->short_name, f->name, f->units, f->cf_name) = known->second;
        return;
      }
    }
    f->short_name = GetString(h, "shortName");
    f->name = GetString(h, "name");
    f->units = GetString(h, "units");
    f->cf_name = GetString(h, "cfName");
    std::lock_guard<std::mutex> lock(mu_);
    if (f->param_id > 0) names_[f->param_id] = {f->short_name, f->name, f->units, f->cf_name};
  }

 private:
  std::mutex mu_;
  std::map<long, std::tuple<std::string, std::string, std::string, std::string>> names_;
};

// The header keys of a field read (not its values).
void ReadField(codes_handle* h, ParameterNames* names, GribField* f) {
  f->edition = GetLong(h, "edition", 0);
  f->param_id = GetLong(h, "paramId", 0);
  names->Fill(h, f);
  if (f->short_name.empty()) {
    // A parameter of a local table ecCodes does not know (NCEP's flux files have 22): named by
    // its number as CDO does ("var121", with the table when not 2), or GRIB2's discipline,
    // category and number, so that unknown parameters stay apart instead of all "unknown".
    if (f->edition == 1) {
      const long table = GetLong(h, "table2Version", 2);
      f->short_name = "var" + std::to_string(GetLong(h, "indicatorOfParameter", 0)) +
                      (table == 2 ? "" : "_t" + std::to_string(table));
    } else {
      f->short_name = "param" + std::to_string(GetLong(h, "discipline", 0)) + "." +
                      std::to_string(GetLong(h, "parameterCategory", 0)) + "." +
                      std::to_string(GetLong(h, "parameterNumber", 0));
    }
  }
  f->type_of_level = GetString(h, "typeOfLevel");
  if (f->type_of_level.empty()) {
    // A level type ecCodes has no name for (NCEP's cloud bottoms and tops, 212-234): named by
    // its code, so that a parameter on two of them stays two variables.
    f->type_of_level = f->edition == 1
                           ? "level" + std::to_string(GetLong(h, "indicatorOfTypeOfLevel", 0))
                           : "level" + std::to_string(GetLong(h, "typeOfFirstFixedSurface", 0));
  }
  f->step_type = GetString(h, "stepType");
  if (codes_get_double(h, "level", &f->level) != 0) f->level = 0;
  f->data_date = GetLong(h, "dataDate", 0);
  f->data_time = GetLong(h, "dataTime", 0);
  f->validity_date = GetLong(h, "validityDate", f->data_date);
  f->validity_time = GetLong(h, "validityTime", f->data_time);
  f->member = GetLong(h, "perturbationNumber", -1);
  f->ensemble_size = GetLong(h, "numberOfForecastsInEnsemble", 0);
  if (f->number == 1) ReadGridKeys(h, &f->grid_keys);
  f->grid_type = GetString(h, "gridType");
  f->ni = GetLong(h, "Ni", 0);
  f->nj = GetLong(h, "Nj", 0);
  f->num_values = GetLong(h, "numberOfDataPoints", 0);  // with missing points too
  f->j_consecutive = GetLong(h, "jPointsAreConsecutive", 0) != 0;
  f->grid_md5 = GetString(h, "md5GridSection");
  f->centre = GetLong(h, "centre", 0);
  f->centre_name = GetString(h, "centreDescription");
  f->centre_abbreviation = GetString(h, "centre");
  f->data_type = GetString(h, "dataType");
  f->type_of_processed_data = GetString(h, "typeOfProcessedData");
}

struct HandleDeleter {
  void operator()(codes_handle* h) const { eccodes::codes_handle_delete(h); }
};

}  // namespace

Result<std::vector<GribField>> GribFile::Scan(int file) {
  // ecCodes trusts a message's lengths and aborts the process on a damaged one: the structure
  // is checked first, so that such a file costs one error (grib_structure.h).
  GRIDSTORE_ASSIGN_OR_RETURN(notes_, CheckGribStructure(file_, path_));
  GRIDSTORE_RETURN_IF_ERROR(Rewind());
  // This thread reads the messages; one worker per core reads their keys (the concept lookups
  // behind them are most of a header's cost, and ecCodes runs them concurrently on different
  // handles). A deque, so that the fields being filled do not move as more are added.
  std::deque<GribField> fields;
  ParameterNames names;
  struct Item {
    std::unique_ptr<codes_handle, HandleDeleter> handle;
    GribField* field = nullptr;
  };
  auto read = [&](const std::function<bool(Item)>& push) -> Status {
    for (int number = 1;; ++number) {
      GRIDSTORE_ASSIGN_OR_RETURN(codes_handle * raw, NextHandle(file_, path_, number));
      if (raw == nullptr) return Status::OK();
      GribField& f = fields.emplace_back();
      f.number = number;
      f.file = file;
      std::unique_ptr<codes_handle, HandleDeleter> handle(raw);
      if (number == 1) {
        // Alone: ecCodes builds its caches (definitions, concepts, tables) on first use without
        // a lock, so two threads doing that at once lose one's allocations.
        ReadField(handle.get(), &names, &f);
        continue;
      }
      if (!push({std::move(handle), &f})) return Status::OK();
    }
  };
  auto work = [&](Item item) {
    ReadField(item.handle.get(), &names, item.field);
    return Status::OK();
  };
  GRIDSTORE_RETURN_IF_ERROR(ReadAndWork<Item>(WorkersPerCore(), 4, read, work));
  if (fields.empty()) return Status::InvalidArgument(Quote(path_) + " holds no GRIB message");
  GRIDSTORE_RETURN_IF_ERROR(Rewind());
  return std::vector<GribField>(std::make_move_iterator(fields.begin()),
                                std::make_move_iterator(fields.end()));
}

Result<std::unique_ptr<GribMessage>> GribFile::NextMessage() {
  const int number = ++next_;
  GRIDSTORE_ASSIGN_OR_RETURN(codes_handle * raw, NextHandle(file_, path_, number));
  if (raw == nullptr) {
    return Status::DataLoss(Quote(path_) + ": field " + std::to_string(number) +
                            " vanished (was the file changed while it was imported?)");
  }
  return std::unique_ptr<GribMessage>(new GribMessage(raw, path_, number));
}

Status GribFile::Next(std::vector<double>* values, std::vector<double>* lats,
                      std::vector<double>* lons) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto message, NextMessage());
  return message->Decode(values, lats, lons);
}

GribMessage::~GribMessage() { eccodes::codes_handle_delete(handle_); }

std::string GribMessage::Where() const {
  return Quote(path_) + ": field " + std::to_string(number_);
}

Result<std::optional<Grib2Packing>> GribMessage::OwnPacking() const {
  const void* data = nullptr;
  size_t size = 0;
  const int rc = eccodes::codes_get_message(handle_, &data, &size);
  if (rc != 0) return Failed(path_, "field " + std::to_string(number_) + ": its bytes", rc);
  Result<std::optional<Grib2Packing>> packing =
      FindGrib2Packing({static_cast<const uint8_t*>(data), size});
  if (!packing.ok()) return packing.status().WithContext(Where());
  return packing;
}

Status GribMessage::DecodeWithEcCodes(std::vector<double>* values) const {
  const std::string& path = path_;
  const int number = number_;
  codes_handle* h = handle_;
  GRIDSTORE_RETURN_IF_ERROR(GetDoubles(h, "values", values, path, number));
  if (GetLong(h, "bitmapPresent", 0) != 0) {
    // The bitmap, not the missingValue stand-in (which a real value may equal), says what is
    // missing.
    size_t size = 0;
    std::vector<long> bitmap;
    int rc = eccodes::codes_get_size(h, "bitmap", &size);
    if (rc == 0) {
      bitmap.resize(size);
      rc = eccodes::codes_get_long_array(h, "bitmap", bitmap.data(), &size);
    }
    if (rc != 0) return Failed(path, "field " + std::to_string(number) + ": its bitmap", rc);
    if (bitmap.size() != values->size()) {
      return Status::DataLoss(Where() + ": bitmap of " + std::to_string(bitmap.size()) +
                              " points for " + std::to_string(values->size()) + " values");
    }
    for (size_t i = 0; i < bitmap.size(); ++i) {
      if (bitmap[i] == 0) (*values)[i] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return Status::OK();
}

template <typename T>
Status GribMessage::DecodeInto(std::span<T> out) const {
  auto count_differs = [&](size_t count) {
    return Status::DataLoss(Where() + " decoded to " + std::to_string(count) + " values, not " +
                            std::to_string(out.size()));
  };
  GRIDSTORE_ASSIGN_OR_RETURN(std::optional<Grib2Packing> packing, OwnPacking());
  if (!packing) {
    thread_local std::vector<double> values;
    GRIDSTORE_RETURN_IF_ERROR(DecodeWithEcCodes(&values));
    if (values.size() != out.size()) return count_differs(values.size());
    std::transform(values.begin(), values.end(), out.begin(),
                   [](double v) { return static_cast<T>(v); });
    return Status::OK();
  }
  if (static_cast<uint64_t>(packing->points) != out.size()) return count_differs(packing->points);
  if (!packing->bitmap) return UnpackGrib2Values(*packing, out).WithContext(Where());
  // The values of the points the bitmap marks (ecCodes reads the bitmap: section 6 may be
  // another field's), NaN elsewhere.
  thread_local std::vector<T> packed;
  packed.resize(size_t(packing->values));
  GRIDSTORE_RETURN_IF_ERROR(UnpackGrib2Values(*packing, std::span<T>(packed)).WithContext(Where()));
  size_t size = 0;
  thread_local std::vector<long> bitmap;
  int rc = eccodes::codes_get_size(handle_, "bitmap", &size);
  if (rc == 0) {
    bitmap.resize(size);
    rc = eccodes::codes_get_long_array(handle_, "bitmap", bitmap.data(), &size);
  }
  if (rc != 0) return Failed(path_, "field " + std::to_string(number_) + ": its bitmap", rc);
  if (size != out.size()) {
    return Status::DataLoss(Where() + ": bitmap of " + std::to_string(size) + " points for " +
                            std::to_string(out.size()));
  }
  const size_t present = size_t(std::count_if(bitmap.begin(), bitmap.begin() + ptrdiff_t(size),
                                              [](long b) { return b != 0; }));
  if (present != packed.size()) {
    return Status::DataLoss(Where() + ": its bitmap marks " + std::to_string(present) +
                            " points present, section 5 packs " + std::to_string(packed.size()) +
                            " values");
  }
  for (size_t i = 0, j = 0; i < size; ++i) {
    out[i] = bitmap[i] != 0 ? packed[j++] : std::numeric_limits<T>::quiet_NaN();
  }
  return Status::OK();
}

template Status GribMessage::DecodeInto<float>(std::span<float>) const;
template Status GribMessage::DecodeInto<double>(std::span<double>) const;

Status GribMessage::Decode(std::vector<double>* values, std::vector<double>* lats,
                           std::vector<double>* lons) const {
  GRIDSTORE_ASSIGN_OR_RETURN(std::optional<Grib2Packing> packing, OwnPacking());
  if (packing) {
    values->resize(size_t(packing->points));
    GRIDSTORE_RETURN_IF_ERROR(DecodeInto(std::span<double>(*values)));
  } else {
    GRIDSTORE_RETURN_IF_ERROR(DecodeWithEcCodes(values));
  }
  if (lats != nullptr)
    GRIDSTORE_RETURN_IF_ERROR(GetDoubles(handle_, "latitudes", lats, path_, number_));
  if (lons != nullptr)
    GRIDSTORE_RETURN_IF_ERROR(GetDoubles(handle_, "longitudes", lons, path_, number_));
  return Status::OK();
}

}  // namespace gridstore::internal_importers
