// Copyright 2026 The GridStore Authors.
//
// Issue 29, 1.2: one flipped bit in a GRIB header made ecCodes abort the whole process (heap
// corruption), in `import` and at every restart of `ingest --watch`. The structure check turns
// such a message into one DataLoss naming the file, message and offset; bytes outside messages
// are notes. Checked on the real files and on the exact damage the issue reports.
#include "gridstore/importers/grib/internal/grib_structure.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gridstore/importers/grib/grib_importer.h"
#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"

namespace gridstore::internal_importers {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(GribStructureTest, EveryRealFileIsWhole) {
  const std::vector<std::string> files = testing::RealGribFiles();
  ASSERT_GE(files.size(), 15u);
  for (const std::string& path : files) {
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> notes, CheckGribStructure(ReadAll(path), path));
    EXPECT_TRUE(notes.empty()) << path << ": " << notes[0];
  }
}

TEST(GribStructureTest, Issue29FlippedLengthBitsAreOneErrorNotAnAbort) {
  std::string lambert = ReadAll(testing::GribDir() + "/lambert.grib2");
  lambert[208] ^= 0x01;  // section 7's length, 65,536 bytes too long
  EXPECT_STATUS(CheckGribStructure(lambert, "lambert.grib2"), kDataLoss,
                "'lambert.grib2': GRIB message 1 (at byte offset 0) is corrupt",
                "section 7 (at byte offset 207)");
  std::string cmc =
      ReadAll(testing::GribDir() + "/CMC_glb_TMP_ISBL_1015_ps30km_2013052000_P006.grib2");
  cmc[40] ^= 0x10;  // section 3's length
  EXPECT_STATUS(CheckGribStructure(cmc, "cmc.grib2"), kDataLoss, "GRIB message 1",
                "does not fit in the message");
  // Through the importer too, with a real file: an error, and the process lives on.
  testing::ScopedTempDir dir;
  const std::string bad = dir.Sub("bad.grib2");
  std::ofstream(bad, std::ios::binary) << lambert;
  importers::GribImportOptions options;
  options.dataset_id = "x";
  EXPECT_STATUS(importers::ReadGribMeta(bad, options).status(), kDataLoss, "bad.grib2",
                "GRIB message 1");
  EXPECT_STATUS(importers::CheckGribFile(bad), kDataLoss, "GRIB message 1");
}

TEST(GribStructureTest, EveryDamagedLengthOrSectionNumberIsCaught) {
  const std::string good = ReadAll(testing::GribDir() + "/regular_gg.grib2");
  ASSERT_OK(CheckGribStructure(good, "g").status());
  // Every byte of the first message's section headers (total length, each section's length and
  // number), each bit flipped: never OK with a different structure, never a crash.
  int caught = 0, flips = 0;
  for (size_t byte : {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = good;
      damaged[byte] = char(damaged[byte] ^ (1 << bit));
      ++flips;
      caught += !CheckGribStructure(damaged, "g").ok();
    }
  }
  EXPECT_EQ(caught, flips);
}

TEST(GribStructureTest, Issue29JunkBeforeBetweenAndAfterMessagesIsNoted) {
  const std::string one = ReadAll(testing::GribDir() + "/lambert.grib2");
  const std::string data = "JUNK" + one + "garbage\n" + one + "tail";
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> notes, CheckGribStructure(data, "j.grib2"));
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "'j.grib2': skipped 4 byte(s) at offset 0 before message 1 (not GRIB)");
  EXPECT_EQ(notes[1], "'j.grib2': skipped 8 byte(s) at offset " + std::to_string(4 + one.size()) +
                          " before message 2 (not GRIB)");
  EXPECT_EQ(notes[2], "'j.grib2': skipped 4 byte(s) at offset " +
                          std::to_string(12 + 2 * one.size()) +
                          " after the last message (not GRIB)");
  // Truncated: the last message cut short.
  EXPECT_STATUS(CheckGribStructure(one.substr(0, one.size() - 10), "t.grib2"), kDataLoss,
                "runs past the end of the file");
}

}  // namespace
}  // namespace gridstore::internal_importers
