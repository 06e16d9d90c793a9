// Copyright 2026 The GridStore Authors.
//
// Real GRIB files for tests (../shared/grib beside $GRIDSTORE_TEST_DATA, or $GRIDSTORE_TEST_GRIB),
// ecCodes' own decoding of them, and runs made from their real messages: a forecast run's step
// files written with ecCodes (the fields of one analysis time re-labelled as step N of one run).
#ifndef GRIDSTORE_TESTS_IMPORTERS_GRIB_TESTUTIL_H_
#define GRIDSTORE_TESTS_IMPORTERS_GRIB_TESTUTIL_H_

#include <eccodes.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gridstore::testing {

inline std::string GribDir() {
  if (const char* env = std::getenv("GRIDSTORE_TEST_GRIB"); env != nullptr && *env != '\0') {
    return env;
  }
  const char* data = std::getenv("GRIDSTORE_TEST_DATA");
  if (data == nullptr || *data == '\0') {
    ADD_FAILURE() << "GRIDSTORE_TEST_DATA is not set (ctest sets it; ../shared/grib is beside it)";
    return "";
  }
  const std::string dir = (std::filesystem::path(data) / ".." / "grib").lexically_normal().string();
  if (!std::filesystem::is_directory(dir))
    ADD_FAILURE() << "no folder of real GRIB files at " << dir;
  return dir;
}

// Every GRIB file of ../shared/grib and ../shared/corpus (.grib, .grib1, .grib2), sorted.
inline std::vector<std::string> RealGribFiles() {
  std::vector<std::string> files;
  const std::filesystem::path grib = GribDir();
  for (const auto& dir : {grib, grib / ".." / "corpus"}) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".grib") || name.ends_with(".grib1") || name.ends_with(".grib2")) {
        files.push_back(e.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One field as ecCodes decodes it: values (NaN where the bitmap says missing), its place.
struct DecodedField {
  std::vector<double> values;
  std::string short_name;
  double level = 0;
  long member = -1;
};

inline long LongKey(codes_handle* h, const char* key, long otherwise) {
  long v = 0;
  return codes_get_long(h, key, &v) == 0 ? v : otherwise;
}

// Every field of `path`, in file order.
inline std::vector<DecodedField> DecodeWithEcCodes(const std::string& path) {
  std::vector<DecodedField> fields;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    ADD_FAILURE() << "cannot open " << path;
    return fields;
  }
  codes_grib_multi_support_on(nullptr);
  int err = 0;
  while (codes_handle* h = codes_handle_new_from_file(nullptr, f, PRODUCT_GRIB, &err)) {
    DecodedField field;
    size_t n = 0;
    codes_get_size(h, "values", &n);
    field.values.resize(n);
    codes_get_double_array(h, "values", field.values.data(), &n);
    if (LongKey(h, "bitmapPresent", 0) != 0) {
      std::vector<long> bitmap(n);
      codes_get_long_array(h, "bitmap", bitmap.data(), &n);
      for (size_t i = 0; i < n; ++i) {
        if (bitmap[i] == 0) field.values[i] = NAN;
      }
    }
    char name[64];
    size_t len = sizeof(name);
    codes_get_string(h, "shortName", name, &len);
    field.short_name = name;
    codes_get_double(h, "level", &field.level);
    field.member = LongKey(h, "perturbationNumber", -1);
    codes_handle_delete(h);
    fields.push_back(std::move(field));
  }
  std::fclose(f);
  EXPECT_EQ(err, 0) << path;
  return fields;
}

// Writes to `out` the messages of `in` that `keep` accepts, each with the integer keys `set`
// changed (e.g. {{"step", 6}} re-labels them as step 6 of their run). Returns how many.
inline int WriteMessages(const std::string& in, const std::string& out,
                         const std::function<bool(codes_handle*)>& keep,
                         const std::vector<std::pair<std::string, long>>& set) {
  std::FILE* src = std::fopen(in.c_str(), "rb");
  std::FILE* dst = std::fopen(out.c_str(), "wb");
  if (src == nullptr || dst == nullptr) {
    ADD_FAILURE() << "cannot open " << in << " or " << out;
    if (src) std::fclose(src);
    if (dst) std::fclose(dst);
    return 0;
  }
  int written = 0, err = 0;
  while (codes_handle* h = codes_handle_new_from_file(nullptr, src, PRODUCT_GRIB, &err)) {
    if (keep(h)) {
      for (const auto& [key, value] : set) {
        EXPECT_EQ(codes_set_long(h, key.c_str(), value), 0) << key;
      }
      const void* message = nullptr;
      size_t size = 0;
      codes_get_message(h, &message, &size);
      std::fwrite(message, 1, size, dst);
      ++written;
    }
    codes_handle_delete(h);
  }
  std::fclose(src);
  std::fclose(dst);
  return written;
}

// Step `k` of a run made from era5-levels-members.grib (member 0; z and t at 500 and 850 hPa):
// the fields of its analysis time k (0..3: 2017-01-01 00 and 12 UTC, 2017-01-02 00 and 12 UTC)
// labelled as step 6k of the run of 2017-01-01 00 UTC. `levels` (if not empty) keeps those.
inline int WriteRunStep(const std::string& out, int k, std::vector<long> levels = {}) {
  const long dates[] = {20170101, 20170101, 20170102, 20170102};
  const long times[] = {0, 1200, 0, 1200};
  return WriteMessages(GribDir() + "/era5-levels-members.grib", out,
                       [&](codes_handle* h) {
                         bool level_ok = levels.empty();
                         for (long l : levels) level_ok |= LongKey(h, "level", -1) == l;
                         return LongKey(h, "perturbationNumber", -1) == 0 &&
                                LongKey(h, "dataDate", 0) == dates[k] &&
                                LongKey(h, "dataTime", -1) == times[k] && level_ok;
                       },
                       {{"dataDate", 20170101}, {"dataTime", 0}, {"step", 6L * k}});
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_IMPORTERS_GRIB_TESTUTIL_H_
