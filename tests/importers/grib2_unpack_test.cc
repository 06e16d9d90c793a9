// Copyright 2026 The GridStore Authors.
//
// Issue 33, part 5: GRIB2 simple and complex packing unpacked by our own code must give ecCodes'
// numbers bit for bit. Every message of every real GRIB file in ../shared (grib and corpus) that
// the decoder takes is compared with ecCodes' values (as double and as the float32 the import
// stores, NaN where the bitmap says missing); the packings the real files lack (template 5.2,
// spatial differencing of order 2, negative biases and scale factors) are written here by a
// small encoder into a real message and compared the same way; the packings not taken fall back to
// ecCodes; and damaged data sections are errors, never reads outside the message.
#include "gridstore/importers/grib/internal/grib2_unpack.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gridstore/importers/grib/internal/grib_file.h"
#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"

// A namespace of its own: in a unity build the other GRIB tests' helpers share the file.
namespace gridstore::internal_importers::grib2_unpack_test {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes MessageOf(codes_handle* h) {
  const void* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(codes_get_message(h, &data, &size), 0);
  const auto* p = static_cast<const uint8_t*>(data);
  return Bytes(p, p + size);
}

// ecCodes' decoding of one message held in memory: its packed values (codedValues) and its
// values with NaN where the bitmap says missing.
struct EcCodesValues {
  std::vector<double> coded, values;
};

EcCodesValues DecodeMessage(const Bytes& message) {
  EcCodesValues out;
  codes_handle* h = codes_handle_new_from_message(nullptr, message.data(), message.size());
  if (h == nullptr) {
    ADD_FAILURE() << "ecCodes does not read the message";
    return out;
  }
  size_t n = 0;
  EXPECT_EQ(codes_get_size(h, "codedValues", &n), 0);
  out.coded.resize(n);
  EXPECT_EQ(codes_get_double_array(h, "codedValues", out.coded.data(), &n), 0);
  EXPECT_EQ(codes_get_size(h, "values", &n), 0);
  out.values.resize(n);
  EXPECT_EQ(codes_get_double_array(h, "values", out.values.data(), &n), 0);
  if (testing::LongKey(h, "bitmapPresent", 0) != 0) {
    std::vector<long> bitmap(n);
    EXPECT_EQ(codes_get_long_array(h, "bitmap", bitmap.data(), &n), 0);
    for (size_t i = 0; i < n; ++i) {
      if (bitmap[i] == 0) out.values[i] = NAN;
    }
  }
  codes_handle_delete(h);
  return out;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Our unpacking of `message` (which must be taken) against ecCodes' codedValues, as double and
// as float, every value bit for bit. Returns how many values were compared.
size_t ExpectUnpackedAsEcCodes(const Bytes& message, const std::string& what) {
  auto packing = FindGrib2Packing(message);
  EXPECT_TRUE(packing.ok()) << what << ": " << packing.status().ToString();
  if (!packing.ok() || !*packing) {
    ADD_FAILURE() << what << ": not taken by our decoder";
    return 0;
  }
  const EcCodesValues ecc = DecodeMessage(message);
  std::vector<double> doubles(size_t((*packing)->values));
  std::vector<float> floats(doubles.size());
  EXPECT_TRUE(UnpackGrib2Values(**packing, std::span<double>(doubles)).ok()) << what;
  EXPECT_TRUE(UnpackGrib2Values(**packing, std::span<float>(floats)).ok()) << what;
  EXPECT_EQ(doubles.size(), ecc.coded.size()) << what;
  size_t differ = 0;
  for (size_t i = 0; i < std::min(doubles.size(), ecc.coded.size()); ++i) {
    if (!SameBits(doubles[i], ecc.coded[i]) ||
        !SameBits(floats[i], static_cast<float>(ecc.coded[i]))) {
      if (++differ <= 3) {
        ADD_FAILURE() << what << ": value " << i << ": ours " << doubles[i] << " (" << floats[i]
                      << "f), ecCodes " << ecc.coded[i];
      }
    }
  }
  EXPECT_EQ(differ, 0u) << what;
  return doubles.size();
}

// The whole field through the importer's path (GribMessage::DecodeInto, bitmap included)
// against ecCodes' values rounded to float: the same numbers, NaN at the same points.
template <typename T>
void ExpectFileDecodedAsEcCodes(const std::string& path) {
  const std::vector<testing::DecodedField> ecc = testing::DecodeWithEcCodes(path);
  auto file = GribFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto fields = (*file)->Scan();
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  ASSERT_EQ(fields->size(), ecc.size()) << path;
  std::vector<T> out;
  for (size_t k = 0; k < ecc.size(); ++k) {
    auto message = (*file)->NextMessage();
    ASSERT_TRUE(message.ok()) << message.status().ToString();
    out.assign(ecc[k].values.size(), T(-1));
    const Status decoded = (*message)->DecodeInto(std::span<T>(out));
    ASSERT_TRUE(decoded.ok()) << path << " field " << k + 1 << ": " << decoded.ToString();
    size_t differ = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const T want = static_cast<T>(ecc[k].values[i]);
      if (!(std::isnan(want) ? std::isnan(out[i]) : SameBits(out[i], want)) && ++differ <= 3) {
        ADD_FAILURE() << path << " field " << k + 1 << " point " << i << ": " << out[i]
                      << ", ecCodes " << want;
      }
    }
    ASSERT_EQ(differ, 0u) << path << " field " << k + 1;
  }
}

TEST(Grib2Unpack, EveryRealGrib2MessageItTakesIsEcCodesBitForBit) {
  size_t taken = 0, values = 0, left = 0;
  std::set<std::string> files_taken;
  for (const std::string& path : testing::RealGribFiles()) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    codes_grib_multi_support_on(nullptr);
    int err = 0, number = 0;
    while (codes_handle* h = codes_handle_new_from_file(nullptr, f, PRODUCT_GRIB, &err)) {
      ++number;
      const Bytes message = MessageOf(h);
      char packing_type[64];
      size_t len = sizeof(packing_type);
      codes_get_string(h, "packingType", packing_type, &len);
      const long edition = testing::LongKey(h, "edition", 0);
      codes_handle_delete(h);
      auto packing = FindGrib2Packing(message);
      ASSERT_TRUE(packing.ok()) << path << " message " << number;
      const std::string type = packing_type;
      const bool ours = edition == 2 && (type == "grid_simple" || type == "grid_complex" ||
                                         type == "grid_complex_spatial_differencing");
      if (!*packing) {
        // Only what ecCodes must read: GRIB1, JPEG 2000, or a header outside what is handled.
        EXPECT_TRUE(!ours || type != "grid_simple") << path << " message " << number;
        ++left;
        continue;
      }
      EXPECT_TRUE(ours) << path << " message " << number << ": " << type;
      values += ExpectUnpackedAsEcCodes(message, path + " message " + std::to_string(number));
      ++taken;
      files_taken.insert(std::filesystem::path(path).filename().string());
    }
    std::fclose(f);
  }
  // The real files hold simple packing (3_layer, regular_gg, reduced_gg, the corpus' ij files)
  // and complex packing with spatial differencing (lambert, missing_values with its bitmap).
  for (const char* name : {"3_layer.grib2", "lambert.grib2", "missing_values.grib2",
                           "regular_gg.grib2", "reduced_gg.grib2"}) {
    EXPECT_TRUE(files_taken.count(name)) << name << " was not unpacked by our decoder";
  }
  EXPECT_GT(values, 1000000u);
  EXPECT_GT(left, 0u);  // GRIB1 and JPEG 2000
  std::cout << taken << " GRIB2 messages (" << values << " values) unpacked as ecCodes does, "
            << left << " left to ecCodes\n";
}

TEST(Grib2Unpack, EveryRealFileDecodesAsEcCodesThroughTheImporterPath) {
  // Taken or not (the fallback: GRIB1, JPEG 2000), as float32 (the default) and float64.
  for (const std::string& path : testing::RealGribFiles()) {
    SCOPED_TRACE(path);
    ExpectFileDecodedAsEcCodes<float>(path);
    ExpectFileDecodedAsEcCodes<double>(path);
  }
}

TEST(Grib2Unpack, PackingsItDoesNotTakeFallBackToEcCodes) {
  // JPEG 2000 (template 5.40) and GRIB1: FindGrib2Packing leaves them to ecCodes, and the
  // message still decodes, to ecCodes' values.
  for (const char* name : {"CMC_glb_TMP_ISBL_1015_ps30km_2013052000_P006.grib2",
                           "wafsgfs_L_t06z_intdsk60.grib2", "era5-2mt-2019-03-uk.grib"}) {
    const std::string path = testing::GribDir() + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    int err = 0;
    codes_handle* h = codes_handle_new_from_file(nullptr, f, PRODUCT_GRIB, &err);
    std::fclose(f);
    ASSERT_NE(h, nullptr) << path;
    const Bytes message = MessageOf(h);
    codes_handle_delete(h);
    auto packing = FindGrib2Packing(message);
    ASSERT_TRUE(packing.ok()) << path;
    EXPECT_FALSE(packing->has_value()) << path;
    ExpectFileDecodedAsEcCodes<float>(path);
  }
}

// --- Messages written here: the packings the real files lack. ---

class BitWriter {
 public:
  void Put(uint64_t value, int width) {
    for (int b = width - 1; b >= 0; --b) {
      if (bit_ % 8 == 0) bytes_.push_back(0);
      if ((value >> b) & 1) bytes_.back() |= uint8_t(0x80 >> (bit_ % 8));
      ++bit_;
    }
  }
  void Align() { bit_ = (bit_ + 7) / 8 * 8; }
  const Bytes& bytes() const { return bytes_; }

 private:
  Bytes bytes_;
  uint64_t bit_ = 0;
};

int BitsFor(uint64_t v) {
  int bits = 0;
  while (v >> bits) ++bits;
  return bits;
}

void PutOctets(Bytes* b, uint64_t v, int count) {
  for (int i = count - 1; i >= 0; --i) b->push_back(uint8_t(v >> (8 * i)));
}

void PutSigned(Bytes* b, int64_t v, int count) {
  PutOctets(b, v < 0 ? (uint64_t(-v) | (uint64_t{1} << (8 * count - 1))) : uint64_t(v), count);
}

// How a field is written: the integers before any differencing (y), R, E, D, the template, the
// order of spatial differencing and which points are present.
struct Craft {
  int template_number = 3;
  int order = 1;
  int extra_octets = 2;
  float reference = -12.5f;
  int binary_scale = -2, decimal_scale = 1;
  std::vector<int64_t> y;
  std::vector<bool> present;  // empty: no bitmap
};

// The first message of 3_layer.grib2 (7008 points) with sections 5, 6 and 7 written from
Bytes FirstMessage(const std::string& name) {
  const std::string path = testing::GribDir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  int err = 0;
  codes_handle* h = f ? codes_handle_new_from_file(nullptr, f, PRODUCT_GRIB, &err) : nullptr;
  if (f) std::fclose(f);
  if (h == nullptr) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  Bytes m = MessageOf(h);
  codes_handle_delete(h);
  return m;
}

// `craft`: groups of 37 or 40 values, each at the width of its range.
Bytes CraftMessage(const Craft& craft) {
  const Bytes base = FirstMessage("3_layer.grib2");
  if (base.empty()) return {};
  // Sections 0 to 4 of the base.
  size_t at = 16;
  while (base[at + 4] != 5) {
    at += (size_t(base[at]) << 24) | (size_t(base[at + 1]) << 16) | (size_t(base[at + 2]) << 8) |
          base[at + 3];
  }
  Bytes m(base.begin(), base.begin() + ptrdiff_t(at));
  const size_t n = craft.y.size();
  // What is packed: y, or its differences less their least (the bias).
  std::vector<int64_t> x(craft.y);
  int64_t bias = 0;
  if (craft.order > 0) {
    std::vector<int64_t> d(n, 0);
    for (size_t i = size_t(craft.order); i < n; ++i) {
      d[i] = craft.order == 1 ? craft.y[i] - craft.y[i - 1]
                              : craft.y[i] - 2 * craft.y[i - 1] + craft.y[i - 2];
    }
    bias = *std::min_element(d.begin() + craft.order, d.end());
    for (size_t i = 0; i < n; ++i) x[i] = i < size_t(craft.order) ? 0 : d[i] - bias;
  }
  // Groups of 37 and 40 values, alternately.
  struct G {
    uint64_t ref, width, length;
  };
  std::vector<G> groups;
  for (size_t i = 0; i < n;) {
    const size_t len = std::min<size_t>(groups.size() % 2 ? 40 : 37, n - i);
    const auto [lo, hi] =
        std::minmax_element(x.begin() + ptrdiff_t(i), x.begin() + ptrdiff_t(i + len));
    groups.push_back({uint64_t(*lo), uint64_t(BitsFor(uint64_t(*hi - *lo))), len});
    i += len;
  }
  uint64_t max_ref = 0, max_width = 0;
  for (const G& g : groups) {
    max_ref = std::max(max_ref, g.ref);
    max_width = std::max(max_width, g.width);
  }
  const int bits = std::max(BitsFor(max_ref), 1), width_bits = BitsFor(max_width);
  // Section 5.
  Bytes s5;
  PutOctets(&s5, craft.template_number == 3 ? 49 : 47, 4);
  s5.push_back(5);
  PutOctets(&s5, n, 4);
  PutOctets(&s5, uint64_t(craft.template_number), 2);
  uint32_t r;
  std::memcpy(&r, &craft.reference, 4);
  PutOctets(&s5, r, 4);
  PutSigned(&s5, craft.binary_scale, 2);
  PutSigned(&s5, craft.decimal_scale, 2);
  s5.push_back(uint8_t(bits));
  s5.push_back(0);  // floating point
  s5.push_back(1);  // general group splitting
  s5.push_back(0);  // no missing values inside the data
  PutOctets(&s5, 0, 8);
  PutOctets(&s5, groups.size(), 4);
  s5.push_back(0);  // reference for widths
  s5.push_back(uint8_t(width_bits));
  PutOctets(&s5, 37, 4);  // reference for lengths
  s5.push_back(1);        // length increment
  PutOctets(&s5, groups.back().length, 4);
  s5.push_back(2);  // bits of the scaled lengths: 0 or 3
  if (craft.template_number == 3) {
    s5.push_back(uint8_t(craft.order));
    s5.push_back(uint8_t(craft.extra_octets));
  }
  // Section 6.
  Bytes s6;
  BitWriter bitmap;
  for (bool p : craft.present) bitmap.Put(p ? 1 : 0, 1);
  PutOctets(&s6, 6 + bitmap.bytes().size(), 4);
  s6.push_back(6);
  s6.push_back(craft.present.empty() ? 255 : 0);
  s6.insert(s6.end(), bitmap.bytes().begin(), bitmap.bytes().end());
  // Section 7.
  BitWriter w;
  if (craft.order > 0) {
    for (int i = 0; i < craft.order; ++i)
      w.Put(uint64_t(craft.y[size_t(i)]), 8 * craft.extra_octets);
    const int sign_at = 8 * craft.extra_octets - 1;
    w.Put(bias < 0 ? (uint64_t(-bias) | (uint64_t{1} << sign_at)) : uint64_t(bias),
          8 * craft.extra_octets);
  }
  for (const G& g : groups) w.Put(g.ref, bits);
  w.Align();
  for (const G& g : groups) w.Put(g.width, width_bits);
  w.Align();
  for (size_t k = 0; k < groups.size(); ++k) {
    if (k + 1 < groups.size()) w.Put(groups[k].length - 37, 2);
  }
  w.Put(0, 2);  // the last group's slot (its length is in section 5)
  w.Align();
  size_t i = 0;
  for (const G& g : groups) {
    for (size_t j = 0; j < g.length; ++j, ++i) w.Put(uint64_t(x[i]) - g.ref, int(g.width));
  }
  w.Align();
  Bytes s7;
  PutOctets(&s7, 5 + w.bytes().size(), 4);
  s7.push_back(7);
  s7.insert(s7.end(), w.bytes().begin(), w.bytes().end());
  for (const Bytes* s : {&s5, &s6, &s7}) m.insert(m.end(), s->begin(), s->end());
  for (char c : std::string("7777")) m.push_back(uint8_t(c));
  for (int k = 0; k < 8; ++k) m[size_t(8 + k)] = uint8_t(uint64_t(m.size()) >> (8 * (7 - k)));
  return m;
}

// A smooth field with some noise, as integers of a few hundred.
std::vector<int64_t> SmoothField(size_t n, int64_t base = 500) {
  std::vector<int64_t> y(n);
  std::mt19937 random(33);
  for (size_t i = 0; i < n; ++i) {
    y[i] = base + int64_t(200 * std::sin(double(i) * 0.013)) + int64_t(random() % 9);
  }
  return y;
}

TEST(Grib2Unpack, WrittenComplexPackingsAreEcCodesBitForBit) {
  struct Case {
    int template_number, order, octets;
    int e, d;
    int64_t base;
  };
  for (const Case c :
       {Case{2, 0, 0, -2, 1, 500}, Case{3, 0, 0, 0, 0, 500}, Case{3, 1, 2, -2, 1, 500},
        Case{3, 1, 3, 3, -2, 70000}, Case{3, 2, 2, -2, 1, 500}, Case{3, 2, 4, -6, 3, 5000000},
        Case{3, 1, 1, 0, 2, 100},
        // 10^-6 and 10^-9 by repeated division differ from 1e-6 and 1e-9.
        Case{3, 1, 2, -2, 6, 500}, Case{2, 0, 0, 0, 9, 500}}) {
    Craft craft;
    craft.template_number = c.template_number;
    craft.order = c.order;
    craft.extra_octets = c.octets;
    craft.binary_scale = c.e;
    craft.decimal_scale = c.d;
    craft.y = SmoothField(7008, c.base);
    const std::string what = "template 5." + std::to_string(c.template_number) + ", order " +
                             std::to_string(c.order) + ", E " + std::to_string(c.e) + ", D " +
                             std::to_string(c.d);
    const Bytes m = CraftMessage(craft);
    ASSERT_EQ(ExpectUnpackedAsEcCodes(m, what), 7008u) << what;
    // And the integers undone are the ones written: ((y * 2^E) + R) * 10^-D.
    auto packing = FindGrib2Packing(m);
    ASSERT_TRUE(packing.ok() && *packing);
    std::vector<double> v(7008);
    ASSERT_TRUE(UnpackGrib2Values(**packing, std::span<double>(v)).ok());
    double ds = 1;
    for (int k = 0; k < c.d; ++k) ds /= 10;
    for (int k = 0; k > c.d; --k) ds *= 10;
    for (size_t i = 0; i < v.size(); i += 101) {
      const double want =
          ((double(craft.y[i]) * std::ldexp(1.0, c.e)) + double(craft.reference)) * ds;
      ASSERT_EQ(v[i], want) << what << " value " << i;
    }
  }
}

TEST(Grib2Unpack, BitmapPointsAreNaNAsEcCodesSays) {
  // Spatial differencing over the present points, a bitmap with runs of missing points; decoded
  // from a file through GribMessage::DecodeInto.
  Craft craft;
  craft.order = 2;
  craft.present.resize(7008);
  for (size_t i = 0; i < 7008; ++i) craft.present[i] = (i / 50) % 3 != 1 && i % 17 != 3;
  craft.y = SmoothField(size_t(std::count(craft.present.begin(), craft.present.end(), true)));
  const Bytes m = CraftMessage(craft);
  ExpectUnpackedAsEcCodes(m, "order 2 with a bitmap");
  testing::ScopedTempDir dir;
  const std::string path = dir.Sub("bitmap.grib2");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(m.data()), std::streamsize(m.size()));
  ExpectFileDecodedAsEcCodes<float>(path);
  ExpectFileDecodedAsEcCodes<double>(path);
}

// --- Damaged data sections. ---

// Section 5's octet `at` (0-based from the section's start) of message `m`.
uint8_t& Section5(Bytes& m, size_t at) {
  size_t s = 16;
  while (m[s + 4] != 5) {
    s += (size_t(m[s]) << 24) | (size_t(m[s + 1]) << 16) | (size_t(m[s + 2]) << 8) | m[s + 3];
  }
  return m[s + at];
}

// m with its section 7 `cut` octets shorter (and the message as much): a truncated data section
// whose lengths agree with each other.
Bytes CutSection7(const Bytes& m, size_t cut) {
  size_t s = 16;
  while (m[s + 4] != 7) {
    s += (size_t(m[s]) << 24) | (size_t(m[s + 1]) << 16) | (size_t(m[s + 2]) << 8) | m[s + 3];
  }
  const size_t length =
      (size_t(m[s]) << 24) | (size_t(m[s + 1]) << 16) | (size_t(m[s + 2]) << 8) | m[s + 3];
  Bytes out(m.begin(), m.begin() + ptrdiff_t(s + length - cut));
  for (int k = 0; k < 4; ++k) out[s + size_t(k)] = uint8_t((length - cut) >> (8 * (3 - k)));
  for (char c : std::string("7777")) out.push_back(uint8_t(c));
  for (int k = 0; k < 8; ++k) out[size_t(8 + k)] = uint8_t(uint64_t(out.size()) >> (8 * (7 - k)));
  return out;
}

// The octets of m's section 7 after its 5-octet header.
size_t Section7DataSize(const Bytes& m) {
  size_t s = 16;
  while (m[s + 4] != 7) {
    s += (size_t(m[s]) << 24) | (size_t(m[s + 1]) << 16) | (size_t(m[s + 2]) << 8) | m[s + 3];
  }
  return ((size_t(m[s]) << 24) | (size_t(m[s + 1]) << 16) | (size_t(m[s + 2]) << 8) | m[s + 3]) - 5;
}

// The error of unpacking `m` (whose header must be taken); OK if it unpacks.
Status UnpackStatus(const Bytes& m) {
  auto packing = FindGrib2Packing(m);
  if (!packing.ok()) return packing.status();
  if (!*packing) return Status::Internal("not taken");
  std::vector<float> out(size_t((*packing)->values));
  return UnpackGrib2Values(**packing, std::span<float>(out));
}

TEST(Grib2Unpack, DamagedDataSectionsAreClearErrors) {
  const Bytes lambert = FirstMessage("lambert.grib2");  // 5.3, order 1
  const Bytes simple = FirstMessage("3_layer.grib2");   // 5.0, 24 bits
  ASSERT_TRUE(UnpackStatus(lambert).ok());
  ASSERT_TRUE(UnpackStatus(simple).ok());
  auto expect_loss = [](const Bytes& m, const std::string& words, const std::string& what) {
    const Status s = UnpackStatus(m);
    EXPECT_TRUE(s.IsDataLoss()) << what << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(words), std::string::npos) << what << ": " << s.ToString();
  };
  // Truncated: the values, and the group descriptors.
  expect_loss(CutSection7(lambert, 1000), "truncated", "values cut");
  expect_loss(CutSection7(simple, 1), "truncated", "simple packing cut by one octet");
  // All but 100 octets of the data cut: not even the groups' descriptors are there.
  expect_loss(CutSection7(lambert, Section7DataSize(lambert) - 100), "descriptors",
              "descriptors cut");
  // Group widths over 32 bits.
  {
    Bytes m = lambert;
    Section5(m, 35) = 40;  // reference for group widths
    expect_loss(m, "more than 32", "group width 40+");
  }
  {
    Bytes m = lambert;
    Section5(m, 36) = 33;  // bits of the group widths
    expect_loss(m, "more than 32", "group width field of 33 bits");
  }
  // Lengths that do not add up to the values: the last group longer, shorter; more groups.
  {
    Bytes m = lambert;
    Section5(m, 45) = uint8_t(Section5(m, 45) + 5);
    expect_loss(m, "go past", "last group longer");
  }
  {
    Bytes m = lambert;
    Section5(m, 45) = uint8_t(Section5(m, 45) - 5);
    expect_loss(m, "its groups hold", "last group shorter");
  }
  {
    Bytes m = lambert;
    Section5(m, 31) = 0x7f;  // numberOfGroupsOfDataValues beyond the values
    expect_loss(m, "groups for", "too many groups");
  }
  // A section longer than the message, and a message cut before its end section.
  {
    Bytes m = lambert;
    m.resize(m.size() / 2);
    const Status s = FindGrib2Packing(m).status();
    EXPECT_TRUE(s.IsDataLoss()) << s.ToString();
  }
  // Over 32 bits per value in section 5: ecCodes' to read (it takes up to 64).
  {
    Bytes m = simple;
    Section5(m, 19) = 40;
    auto packing = FindGrib2Packing(m);
    ASSERT_TRUE(packing.ok());
    EXPECT_FALSE(packing->has_value());
  }
}

TEST(Grib2Unpack, EveryTruncationAndFlippedBitIsAnErrorOrValuesNeverACrash) {
  // Each message cut at every length, and 3,000 single bit flips in sections 5 to 7 (fixed
  // seed): each an error, a fallback or values, read within the message (ASan-clean: each
  // message is its own allocation of exactly its size).
  Craft craft;
  craft.order = 2;
  craft.y = SmoothField(7008);
  for (const Bytes& whole : {CraftMessage(craft), FirstMessage("3_layer.grib2")}) {
    if (whole.empty()) continue;  // no real file to start from: FirstMessage said so
    size_t errors = 0;
    for (size_t size = 0; size < whole.size(); ++size) {
      const Bytes cut(whole.begin(), whole.begin() + ptrdiff_t(size));
      if (size < 16) continue;  // not a GRIB message at all
      errors += !UnpackStatus(cut).ok();
    }
    EXPECT_EQ(errors, whole.size() - 16);  // no cut message unpacks
    std::mt19937 random(5);
    size_t s5 = 16;
    while (whole[s5 + 4] != 5) {
      s5 += (size_t(whole[s5]) << 24) | (size_t(whole[s5 + 1]) << 16) |
            (size_t(whole[s5 + 2]) << 8) | whole[s5 + 3];
    }
    for (int trial = 0; trial < 3000; ++trial) {
      Bytes m = whole;
      const size_t at = s5 + random() % (m.size() - 4 - s5);
      m[at] ^= uint8_t(1u << (random() % 8));
      UnpackStatus(m).IgnoreError();  // any answer but a crash
    }
  }
}

}  // namespace
}  // namespace gridstore::internal_importers::grib2_unpack_test
