// Copyright 2026 The GridStore Authors.
//
// `gridstore import --keep-bits / --keep-digits` (issue 18) on a real file of $GRIDSTORE_TEST_DATA:
// values within the rounding bound of the original, the fill value kept, fewer bytes stored, the
// precision shown by `info` and carried into `fetch -o x.nc` as netCDF-C's attribute; every bad
// request refused with a message naming it.
#include <netcdf.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using testing::ExpectCliError;
using testing::NpyData;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;
using testing::ScopedTempDir;

class PrecisionCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("GRIDSTORE_TEST_DATA");
    ASSERT_TRUE(env != nullptr && fs::is_directory(env))
        << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files (../shared/data)";
    data_ = env;
  }
  RunResult Run(const std::vector<std::string>& args) {
    return RunGridStore(dir_.path().string(), dir_.Sub("store"), args);
  }
  // The compression ratio an import printed ("compression ratio 2.31").
  static double Ratio(const std::string& out) {
    const size_t at = out.find("compression ratio ");
    return at == std::string::npos ? 0 : std::atof(out.c_str() + at + 18);
  }
  std::vector<float> FetchFloats(const std::string& id, const std::string& var) {
    RunResult r = Run({"fetch", id, "--variables", var, "-o", dir_.Sub(id + ".npy")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string bytes = NpyData(ReadFile(dir_.Sub(id + ".npy")));
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
  }

  ScopedTempDir dir_;
  std::string data_;
};

TEST_F(PrecisionCliTest, KeepBitsOnTheRealTosFieldStaysWithinTheBoundAndShrinks) {
  const std::string tos = data_ + "/tos_O1_2001-2002.nc";
  RunResult plain = Run({"import", tos, "--dataset", "plain"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  RunResult r = Run({"import", tos, "--dataset", "q", "--keep-bits", "tos=7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(Ratio(r.out), 1.3 * Ratio(plain.out)) << plain.out << r.out;

  r = Run({"info", "q"});
  EXPECT_NE(r.out.find("    precision: 7 mantissa bits kept (BitRound)\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(Run({"info", "plain"}).out.find("precision:"), std::string::npos);
  r = Run({"info", "q", "--json"});
  auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["variables"][0]["precision"]["mantissa_bits"], 7) << r.out;

  const std::vector<float> original = FetchFloats("plain", "tos");
  const std::vector<float> rounded = FetchFloats("q", "tos");
  ASSERT_EQ(original.size(), size_t{24 * 170 * 180});
  ASSERT_EQ(rounded.size(), original.size());
  size_t fills = 0, changed = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    const double x = original[i];
    if (x == 1e20f) {
      ASSERT_EQ(rounded[i], original[i]) << i;  // the fill value is kept exactly
      ++fills;
      continue;
    }
    // Half a unit of the 7th kept bit: |x - q| <= 2^(e - 8).
    ASSERT_LE(std::fabs(x - rounded[i]), std::ldexp(1.0, std::ilogb(x) - 8)) << x;
    changed += rounded[i] != original[i];
  }
  EXPECT_GT(fills, original.size() / 5);
  EXPECT_GT(changed, original.size() / 2);

  // Exported like netCDF-C's own quantized variables: with its attribute.
  r = Run({"fetch", "q", "--variables", "tos", "-o", dir_.Sub("q.nc")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int nc, id, bits = 0;
  ASSERT_EQ(nc_open(dir_.Sub("q.nc").c_str(), NC_NOWRITE, &nc), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(nc, "tos", &id), NC_NOERR);
  EXPECT_EQ(nc_get_att_int(nc, id, "_QuantizeBitRoundNumberOfSignificantBits", &bits), NC_NOERR);
  EXPECT_EQ(bits, 7);
  nc_close(nc);
}

// Files split along time: every file's planes are rounded, as one file's would be.
TEST_F(PrecisionCliTest, KeepBitsAppliesToEveryFileOfASeries) {
  const std::string tos = data_ + "/tos_O1_2001-2002.nc";
  ASSERT_EQ(Run({"import", tos, "--dataset", "whole", "--keep-bits", "tos=5"}).exit_code, 0);
  ASSERT_EQ(Run({"import", tos, "--dataset", "plain"}).exit_code, 0);
  const std::string y1 = dir_.Sub("y1.nc"), y2 = dir_.Sub("y2.nc");
  for (const auto& [origin, path] : {std::pair{"0,0,0,0", y1}, std::pair{"12,0,0,0", y2}}) {
    ASSERT_EQ(Run({"fetch", "plain", "--variables", "tos", "--origin", origin, "--shape",
                   "12,1,170,180", "-o", path})
                  .exit_code,
              0);
  }
  RunResult r = Run({"import", y2, y1, "--dataset", "joined", "--keep-bits", "tos=5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FetchFloats("joined", "tos"), FetchFloats("whole", "tos"));
  EXPECT_NE(Run({"info", "joined"}).out.find("precision: 5 mantissa bits kept"), std::string::npos);
}

TEST_F(PrecisionCliTest, KeepDigitsIsShownWithItsMode) {
  const std::string tos = data_ + "/tos_O1_2001-2002.nc";
  RunResult r = Run({"import", tos, "--dataset", "d", "--keep-digits", "tos=3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "d"});
  EXPECT_NE(r.out.find("precision: 3 significant digits kept (Granular BitRound)"),
            std::string::npos)
      << r.out;
}

TEST_F(PrecisionCliTest, BadRequestsAreRefusedAndWriteNothing) {
  const std::string tos = data_ + "/tos_O1_2001-2002.nc";
  const std::string co2 = data_ + "/SMALL_total_column_co2.nc";
  ExpectCliError(Run({"import", tos, "--dataset", "x", "--keep-bits", "tos"}),
                 {"--keep-bits wants VAR=N, not 'tos'"});
  ExpectCliError(Run({"import", tos, "--dataset", "x", "--keep-bits", "tos=many"}),
                 {"--keep-bits tos"});
  ExpectCliError(Run({"import", tos, "--dataset", "x", "--keep-bits", "tos=24"}),
                 {"'tos'", "1 to 23 mantissa bits, not 24"});
  ExpectCliError(Run({"import", tos, "--dataset", "x", "--keep-digits", "tos=0"}),
                 {"'tos'", "1 to 7 significant digits, not 0"});
  ExpectCliError(Run({"import", tos, "--dataset", "x", "--keep-bits", "sst=7"}),
                 {"--keep-bits names 'sst'", "'tos'"});
  ExpectCliError(
      Run({"import", tos, "--dataset", "x", "--keep-bits", "tos=7", "--keep-digits", "tos=2"}),
      {"'tos' is given both --keep-bits and --keep-digits"});
  ExpectCliError(
      Run({"import", tos, "--dataset", "x", "--keep-bits", "tos=7", "--keep-bits", "tos=8"}),
      {"--keep-bits gives variable 'tos' twice"});
  ExpectCliError(Run({"import", co2, "--dataset", "x", "--keep-bits", "tcco2=7"}),
                 {"'tcco2' is packed (int16"});
  EXPECT_FALSE(fs::exists(dir_.Sub("store"))) << "a refused import left a store behind";
}

}  // namespace
}  // namespace gridstore
