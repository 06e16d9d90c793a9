// Copyright 2026 The GridStore Authors.
//
// Writes a forecast run as one GRIB2 file for the GRIB import benchmark
// (bench/grib_import_bench.sh): LEVELS isobaric levels x STEPS steps of a regular lat/lon grid,
// every field the real values of a real message (lambert.grib2's 1199 x 799 temperature field from
// ../shared/grib) laid on a 0.25 degree grid, shifted by a little per level and step so that no two
// fields are equal, packed as operational centres pack them (complex packing with spatial
// differencing, the source's bits per value). grib_to_netcdf converts only regular grids, hence the
// relabelling.
//
// Usage: make_grib_run SOURCE.grib2 OUT.grib2 [LEVELS=10] [STEPS=48]
#include <eccodes.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void Check(int err, const char* what) {
  if (err != 0) {
    std::fprintf(stderr, "make_grib_run: %s: %s\n", what, codes_get_error_message(err));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_grib_run SOURCE.grib2 OUT.grib2 [LEVELS] [STEPS]\n");
    return 2;
  }
  const int levels = argc > 3 ? std::atoi(argv[3]) : 10;
  const int steps = argc > 4 ? std::atoi(argv[4]) : 48;
  std::FILE* in = std::fopen(argv[1], "rb");
  if (in == nullptr) {
    std::fprintf(stderr, "make_grib_run: cannot open %s\n", argv[1]);
    return 1;
  }
  int err = 0;
  codes_handle* source = codes_handle_new_from_file(nullptr, in, PRODUCT_GRIB, &err);
  Check(err, "reading the source message");
  std::fclose(in);
  long ni = 0, nj = 0, bits = 0;
  Check(codes_get_long(source, "Ni", &ni), "Ni");
  Check(codes_get_long(source, "Nj", &nj), "Nj");
  Check(codes_get_long(source, "bitsPerValue", &bits), "bitsPerValue");
  size_t n = 0;
  Check(codes_get_size(source, "values", &n), "values");
  std::vector<double> values(n), shifted(n);
  Check(codes_get_double_array(source, "values", values.data(), &n), "values");
  codes_handle_delete(source);

  codes_handle* h = codes_grib_handle_new_from_samples(nullptr, "regular_ll_pl_grib2");
  if (h == nullptr) Check(1, "the regular_ll_pl_grib2 sample");
  Check(codes_set_long(h, "Ni", ni), "Ni");
  Check(codes_set_long(h, "Nj", nj), "Nj");
  Check(codes_set_double(h, "latitudeOfFirstGridPointInDegrees", 0.25 * double(nj - 1) / 2), "lat");
  Check(codes_set_double(h, "longitudeOfFirstGridPointInDegrees", 0), "lon");
  Check(codes_set_double(h, "latitudeOfLastGridPointInDegrees", -0.25 * double(nj - 1) / 2), "lat");
  Check(codes_set_double(h, "longitudeOfLastGridPointInDegrees", 0.25 * double(ni - 1)), "lon");
  Check(codes_set_double(h, "iDirectionIncrementInDegrees", 0.25), "di");
  Check(codes_set_double(h, "jDirectionIncrementInDegrees", 0.25), "dj");
  Check(codes_set_long(h, "dataDate", 20261123), "dataDate");
  Check(codes_set_long(h, "dataTime", 0), "dataTime");
  Check(codes_set_long(h, "discipline", 0), "discipline");
  Check(codes_set_long(h, "parameterCategory", 0), "parameterCategory");
  Check(codes_set_long(h, "parameterNumber", 0), "parameterNumber");  // temperature
  // The values first: the sample's few values cannot be repacked.
  Check(codes_set_double_array(h, "values", values.data(), n), "values");
  size_t len = 0;
  const char* packing = "grid_complex_spatial_differencing";
  len = std::string(packing).size();
  Check(codes_set_string(h, "packingType", packing, &len), "packingType");
  Check(codes_set_long(h, "bitsPerValue", bits), "bitsPerValue");

  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "make_grib_run: cannot create %s\n", argv[2]);
    return 1;
  }
  static const long kLevels[] = {1000, 975, 950, 925, 900, 850, 800, 750, 700, 650, 600, 550,
                                 500,  450, 400, 350, 300, 250, 200, 150, 100, 70,  50,  30};
  for (int s = 0; s < steps; ++s) {
    for (int l = 0; l < levels && l < int(sizeof(kLevels) / sizeof(kLevels[0])); ++l) {
      Check(codes_set_long(h, "step", 3L * s), "step");
      Check(codes_set_long(h, "level", kLevels[l]), "level");
      for (size_t i = 0; i < n; ++i) shifted[i] = values[i] - 0.6 * l + 0.05 * s;
      Check(codes_set_double_array(h, "values", shifted.data(), n), "values");
      const void* message = nullptr;
      size_t size = 0;
      Check(codes_get_message(h, &message, &size), "message");
      if (std::fwrite(message, 1, size, out) != size) Check(1, "writing");
    }
  }
  codes_handle_delete(h);
  return std::fclose(out) == 0 ? 0 : 1;
}
