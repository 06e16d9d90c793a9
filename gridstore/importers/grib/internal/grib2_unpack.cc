// Copyright 2026 The GridStore Authors.
//
// Built with -ffp-contract=off (importers/CMakeLists.txt): a fused multiply-add would round once
// where ecCodes rounds twice, and the values would no longer be ecCodes' bit for bit.
#include "gridstore/importers/grib/internal/grib2_unpack.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gridstore::internal_importers {
namespace {

uint64_t Octets(std::span<const uint8_t> s, size_t at, int count) {
  uint64_t v = 0;
  for (int i = 0; i < count; ++i) v = (v << 8) | s[at + size_t(i)];
  return v;
}

// GRIB2's signed integers: a sign bit and the magnitude (ecCodes' grib_decode_signed_long).
int64_t SignedOctets(std::span<const uint8_t> s, size_t at, int count) {
  const uint64_t v = Octets(s, at, count);
  const uint64_t sign = uint64_t{1} << (8 * count - 1);
  return (v & sign) != 0 ? -int64_t(v & (sign - 1)) : int64_t(v);
}

// The IEEE float R as ecCodes' grib_long_to_ieee reads it: exact for normal numbers, zero for
// either zero, and a denormal given the implicit bit (as ecCodes does). nullopt for infinities and
// NaN, which ecCodes reads through a table entry it does not fill.
std::optional<double> EcCodesIeee(uint32_t x) {
  const uint32_t c = (x >> 23) & 0xff;
  uint32_t m = x & 0x7fffff;
  if (c == 255) return std::nullopt;
  if (c == 0 && m == 0) return 0.0;
  m |= 0x800000;
  const double v = std::ldexp(double(m), int(std::max<uint32_t>(c, 1)) - 150);
  return (x & 0x80000000u) != 0 ? -v : v;
}

// n to the power s, as ecCodes' grib_power makes it (10^-D by repeated division: not 1e-D).
double GribPower(long s, long n) {
  double divisor = 1.0;
  if (s == 0) return 1.0;
  if (s == 1) return double(n);
  while (s < 0) {
    divisor /= double(n);
    s++;
  }
  while (s > 0) {
    divisor *= double(n);
    s--;
  }
  return divisor;
}

Status Bad(const std::string& what) { return Status::DataLoss("GRIB2 data section (7): " + what); }

uint64_t CeilBytes(uint64_t bits) { return (bits + 7) / 8; }

inline uint64_t LoadBigEndian64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// `width` (0 to 32) bits at bit `bit` of `d`, byte by byte, for the few reads outside runs and a
// run's last values; bits past the end read as zero (callers check lengths before reading).
uint64_t ReadBits(std::span<const uint8_t> d, uint64_t bit, int width) {
  if (width == 0) return 0;
  uint64_t v = 0;
  const uint64_t first = bit / 8, last = (bit + uint64_t(width) - 1) / 8;
  for (uint64_t b = first; b <= last; ++b) v = (v << 8) | (b < d.size() ? d[b] : 0);
  const uint64_t end = (last + 1) * 8;  // the bit after those read
  v >>= end - (bit + uint64_t(width));
  return v & ((uint64_t{1} << width) - 1);
}

// Calls put(i, value) for the `count` values of `width` bits (1 to 32) packed from bit `bit` of
// `d`. One unaligned 64-bit load per value while 8 bytes remain, so that the loop has no branch
// and no byte loop; the width is a constant in each instantiation (Width), so are the shifts.
// flatten: `put` inlined into the loop, its state (the spatial differencing's last values) in
// registers; out of line it cost twice the time of the rest.
template <int Width, typename Put>
[[gnu::flatten]] void UnpackRunOf(std::span<const uint8_t> d, uint64_t bit, size_t count,
                                  Put&& put) {
  size_t i = 0;
  // Values whose first byte is at most d.size() - 8 are read with one load.
  if (d.size() >= 8) {
    const uint64_t limit = (d.size() - 7) * 8;  // first bit whose byte is past d.size() - 8
    if (bit < limit) {
      const size_t fast = std::min<uint64_t>(count, (limit - 1 - bit) / Width + 1);
      const uint8_t* p = d.data();
      for (; i < fast; ++i) {
        const uint64_t b = bit + uint64_t(i) * Width;
        put(i, (LoadBigEndian64(p + (b >> 3)) << (b & 7)) >> (64 - Width));
      }
    }
  }
  for (; i < count; ++i) put(i, ReadBits(d, bit + uint64_t(i) * Width, Width));
}

template <typename Put>
void UnpackRun(std::span<const uint8_t> d, uint64_t bit, int width, size_t count, Put&& put) {
  switch (width) {
    case 0:
      for (size_t i = 0; i < count; ++i) put(i, uint64_t{0});
      return;
#define GRIDSTORE_UNPACK_CASE(w) \
  case w:                        \
    return UnpackRunOf<w>(d, bit, count, put);
      GRIDSTORE_UNPACK_CASE(1)
      GRIDSTORE_UNPACK_CASE(2)
      GRIDSTORE_UNPACK_CASE(3)
      GRIDSTORE_UNPACK_CASE(4)
      GRIDSTORE_UNPACK_CASE(5)
      GRIDSTORE_UNPACK_CASE(6)
      GRIDSTORE_UNPACK_CASE(7)
      GRIDSTORE_UNPACK_CASE(8)
      GRIDSTORE_UNPACK_CASE(9)
      GRIDSTORE_UNPACK_CASE(10)
      GRIDSTORE_UNPACK_CASE(11)
      GRIDSTORE_UNPACK_CASE(12)
      GRIDSTORE_UNPACK_CASE(13)
      GRIDSTORE_UNPACK_CASE(14)
      GRIDSTORE_UNPACK_CASE(15)
      GRIDSTORE_UNPACK_CASE(16)
      GRIDSTORE_UNPACK_CASE(17)
      GRIDSTORE_UNPACK_CASE(18)
      GRIDSTORE_UNPACK_CASE(19)
      GRIDSTORE_UNPACK_CASE(20)
      GRIDSTORE_UNPACK_CASE(21)
      GRIDSTORE_UNPACK_CASE(22)
      GRIDSTORE_UNPACK_CASE(23)
      GRIDSTORE_UNPACK_CASE(24)
      GRIDSTORE_UNPACK_CASE(25)
      GRIDSTORE_UNPACK_CASE(26)
      GRIDSTORE_UNPACK_CASE(27)
      GRIDSTORE_UNPACK_CASE(28)
      GRIDSTORE_UNPACK_CASE(29)
      GRIDSTORE_UNPACK_CASE(30)
      GRIDSTORE_UNPACK_CASE(31)
      GRIDSTORE_UNPACK_CASE(32)
#undef GRIDSTORE_UNPACK_CASE
    default:
      return;  // callers refuse wider runs first
  }
}

// ecCodes' arithmetic: ((X * 2^E) + R) * 10^-D in double, two roundings (no fused multiply-add).
struct Scale {
  double binary, reference, decimal;
  double operator()(double x) const { return ((x * binary) + reference) * decimal; }
};

template <typename T>
Status UnpackSimple(const Grib2Packing& p, const Scale& scale, std::span<T> out) {
  const size_t n = out.size();
  if (p.bits == 0) {
    // ecCodes' special case: R itself, not scaled by 10^-D.
    std::fill(out.begin(), out.end(), static_cast<T>(p.reference));
    return Status::OK();
  }
  if (CeilBytes(uint64_t(p.bits) * n) > p.data.size()) {
    return Bad(std::to_string(n) + " values of " + std::to_string(p.bits) + " bits need " +
               std::to_string(CeilBytes(uint64_t(p.bits) * n)) + " octets, it holds " +
               std::to_string(p.data.size()) + " (truncated?)");
  }
  T* o = out.data();
  UnpackRun(p.data, 0, p.bits, n,
            [&](size_t i, uint64_t x) { o[i] = static_cast<T>(scale(double(x))); });
  return Status::OK();
}

struct Group {
  uint64_t reference = 0;
  int width = 0;
  uint64_t length = 0;
};

// The groups of complex packing (their references, widths and lengths), each checked against
// the field's `n` values, and in *packed the groups' packed values.
Result<std::vector<Group>> ReadGroups(const Grib2Packing& p, uint64_t n,
                                      std::span<const uint8_t>* packed) {
  const std::span<const uint8_t> d = p.data;
  const uint64_t ng = uint64_t(p.groups);
  if (ng > std::max<uint64_t>(n, 1)) {
    return Bad(std::to_string(ng) + " groups for " + std::to_string(n) + " values");
  }
  if (p.group_width_bits > 32 || p.group_length_bits > 32) {
    return Bad("group widths of " + std::to_string(p.group_width_bits) + " bits, lengths of " +
               std::to_string(p.group_length_bits) + " bits (more than 32)");
  }
  // Where ecCodes looks: the spatial differencing descriptors and the group references, then
  // the group widths, the group lengths and the values, each from the next whole octet.
  const uint64_t descriptor_bits =
      p.spatial_order != 0 ? uint64_t(p.spatial_order + 1) * uint64_t(p.extra_octets) * 8 : 0;
  const uint64_t widths_at = CeilBytes(descriptor_bits + ng * uint64_t(p.bits));
  const uint64_t lengths_at = widths_at + CeilBytes(ng * uint64_t(p.group_width_bits));
  const uint64_t values_at = lengths_at + CeilBytes(ng * uint64_t(p.group_length_bits));
  if (values_at > d.size()) {
    return Bad(std::to_string(ng) + " groups' descriptors need " + std::to_string(values_at) +
               " octets, it holds " + std::to_string(d.size()) + " (truncated?)");
  }
  // The groups' descriptors, each kind a run of one width.
  std::vector<Group> groups(ng);
  UnpackRun(d, descriptor_bits, p.bits, ng, [&](size_t g, uint64_t x) { groups[g].reference = x; });
  UnpackRun(d.subspan(widths_at), 0, p.group_width_bits, ng,
            [&](size_t g, uint64_t x) { groups[g].width = int(x) + p.group_width_reference; });
  UnpackRun(d.subspan(lengths_at), 0, p.group_length_bits, ng, [&](size_t g, uint64_t x) {
    groups[g].length = x * uint64_t(p.group_length_increment) + uint64_t(p.group_length_reference);
  });
  if (ng > 0) groups.back().length = uint64_t(p.last_group_length);
  uint64_t total = 0, value_bits = 0;
  for (uint64_t g = 0; g < ng; ++g) {
    const Group& group = groups[g];
    if (group.width > 32) {
      return Bad("group " + std::to_string(g + 1) + " has values of " +
                 std::to_string(group.width) + " bits (more than 32)");
    }
    if (group.length > n - total) {
      return Bad("group " + std::to_string(g + 1) + "'s " + std::to_string(group.length) +
                 " values go past the " + std::to_string(n) + " values of the field");
    }
    total += group.length;
    value_bits += group.length * uint64_t(group.width);
  }
  if (total != n) {
    return Bad("its groups hold " + std::to_string(total) + " values, section 5 says " +
               std::to_string(n));
  }
  *packed = d.subspan(values_at);
  if (CeilBytes(value_bits) > packed->size()) {
    return Bad("its groups' values need " + std::to_string(CeilBytes(value_bits)) +
               " octets, it holds " + std::to_string(packed->size()) + " (truncated?)");
  }
  return groups;
}

// Spatial differencing undone as the values are read, in one pass (no field of integers
// between), as ecCodes' post_process does it: the first `order` values are the descriptors, each
// next one its packed difference plus the bias plus the prediction from those before, in
// unsigned arithmetic (ecCodes mixes longs and unsigned longs: the same bits).
template <typename T>
void UnpackDifferenced(const Grib2Packing& p, const Scale& scale, const std::vector<Group>& groups,
                       std::span<const uint8_t> packed, T* o) {
  const std::span<const uint8_t> d = p.data;
  const int octet_bits = p.extra_octets * 8;
  uint64_t extras[2] = {0, 0};
  for (int i = 0; i < p.spatial_order; ++i) {
    extras[i] = ReadBits(d, uint64_t(i) * octet_bits, octet_bits);
  }
  const uint64_t bias_at = uint64_t(p.spatial_order) * octet_bits;
  const uint64_t magnitude = ReadBits(d, bias_at + 1, octet_bits - 1);
  const uint64_t bias = ReadBits(d, bias_at, 1) != 0 ? uint64_t(0) - magnitude : magnitude;
  const uint64_t order = uint64_t(p.spatial_order);
  uint64_t penultimate = extras[0], last = p.spatial_order == 1 ? extras[0] : extras[1];
  uint64_t at = 0, bit = 0;
  for (const Group& group : groups) {
    T* run = o + at;
    const uint64_t reference = group.reference, first = at;
    auto put = [&](size_t i, uint64_t x) {
      uint64_t v;
      if (first + i < order) {
        v = extras[first + i];
      } else if (order == 1) {
        v = reference + x + last + bias;
        last = v;
      } else {
        v = reference + x + bias + last + last - penultimate;
        penultimate = last;
        last = v;
      }
      run[i] = static_cast<T>(scale(double(int64_t(v))));
    };
    UnpackRun(packed, bit, group.width, group.length, put);
    at += group.length;
    bit += group.length * uint64_t(group.width);
  }
}

template <typename T>
Status UnpackComplex(const Grib2Packing& p, const Scale& scale, std::span<T> out) {
  std::span<const uint8_t> packed;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<Group> groups, ReadGroups(p, out.size(), &packed));
  T* o = out.data();
  if (p.spatial_order != 0) {
    UnpackDifferenced(p, scale, groups, packed, o);
    return Status::OK();
  }
  // Each value its group's reference plus its own bits, scaled as it is read.
  uint64_t at = 0, bit = 0;
  for (const Group& group : groups) {
    T* run = o + at;
    const uint64_t reference = group.reference;
    UnpackRun(packed, bit, group.width, group.length, [&](size_t i, uint64_t x) {
      run[i] = static_cast<T>(scale(double(int64_t(reference + x))));
    });
    at += group.length;
    bit += group.length * uint64_t(group.width);
  }
  return Status::OK();
}

}  // namespace

Result<std::optional<Grib2Packing>> FindGrib2Packing(std::span<const uint8_t> message) {
  auto loss = [](const std::string& what) { return Status::DataLoss("GRIB2 message: " + what); };
  if (message.size() < 16 || std::memcmp(message.data(), "GRIB", 4) != 0) {
    return loss("no GRIB indicator section");
  }
  if (message[7] != 2) return std::optional<Grib2Packing>();  // GRIB1: ecCodes
  const uint64_t length = Octets(message, 8, 8);
  if (length > message.size() || length < 16) {
    return loss("its length " + std::to_string(length) + " does not fit its " +
                std::to_string(message.size()) + " octets");
  }
  const std::span<const uint8_t> m = message.first(length);
  std::span<const uint8_t> section[8];
  for (size_t at = 16;;) {
    if (at + 4 <= m.size() && std::memcmp(m.data() + at, "7777", 4) == 0) break;
    if (at + 5 > m.size()) return loss("it ends without its end section (7777)");
    const uint64_t section_length = Octets(m, at, 4);
    const int number = m[at + 4];
    if (section_length < 5 || section_length > m.size() - at) {
      return loss("section " + std::to_string(number) + " of " + std::to_string(section_length) +
                  " octets at octet " + std::to_string(at) + " does not fit in it");
    }
    if (number < 1 || number > 7) return loss("a section numbered " + std::to_string(number));
    if (section[number].empty()) section[number] = m.subspan(at, section_length);
    at += section_length;
    if (number == 7) break;  // one field: the first field's sections
  }
  const auto s3 = section[3], s5 = section[5], s6 = section[6], s7 = section[7];
  if (s3.size() < 14 || s5.size() < 21 || s6.size() < 6 || s7.empty()) {
    return loss("sections 3, 5, 6 and 7 are not all there, whole");
  }
  Grib2Packing p;
  p.points = int64_t(Octets(s3, 6, 4));
  p.values = int64_t(Octets(s5, 5, 4));
  p.template_number = int(Octets(s5, 9, 2));
  const int bitmap_indicator = s6[5];
  if (bitmap_indicator != 0 && bitmap_indicator != 255) return std::optional<Grib2Packing>();
  p.bitmap = bitmap_indicator == 0;
  if (p.bitmap ? p.values > p.points : p.values != p.points) return std::optional<Grib2Packing>();
  const size_t needed = p.template_number == 0 ? 21 : p.template_number == 2 ? 47 : 49;
  if ((p.template_number != 0 && p.template_number != 2 && p.template_number != 3) ||
      s5.size() < needed) {
    return std::optional<Grib2Packing>();
  }
  const std::optional<double> reference = EcCodesIeee(uint32_t(Octets(s5, 11, 4)));
  if (!reference) return std::optional<Grib2Packing>();
  p.reference = *reference;
  p.binary_scale = int(SignedOctets(s5, 15, 2));
  p.decimal_scale = int(SignedOctets(s5, 17, 2));
  p.bits = s5[19];
  if (p.bits > 32) return std::optional<Grib2Packing>();
  if (p.template_number != 0) {
    if (s5[22] != 0) return std::optional<Grib2Packing>();  // missing values inside the data
    p.groups = int64_t(Octets(s5, 31, 4));
    p.group_width_reference = s5[35];
    p.group_width_bits = s5[36];
    p.group_length_reference = int64_t(Octets(s5, 37, 4));
    p.group_length_increment = s5[41];
    p.last_group_length = int64_t(Octets(s5, 42, 4));
    p.group_length_bits = s5[46];
    if (p.template_number == 3) {
      p.spatial_order = s5[47];
      p.extra_octets = s5[48];
      if (p.spatial_order > 2) return std::optional<Grib2Packing>();  // ecCodes refuses these
      if (p.spatial_order != 0 && (p.extra_octets < 1 || p.extra_octets > 4)) {
        return std::optional<Grib2Packing>();
      }
    }
  }
  p.data = s7.subspan(5);
  return std::optional<Grib2Packing>(p);
}

template <typename T>
Status UnpackGrib2Values(const Grib2Packing& packing, std::span<T> out) {
  if (static_cast<int64_t>(out.size()) != packing.values) {
    return Status::Internal("GRIB2 unpacking: room for " + std::to_string(out.size()) +
                            " values, not " + std::to_string(packing.values));
  }
  if (out.empty()) return Status::OK();
  const Scale scale{GribPower(packing.binary_scale, 2), packing.reference,
                    GribPower(-packing.decimal_scale, 10)};
  return packing.template_number == 0 ? UnpackSimple(packing, scale, out)
                                      : UnpackComplex(packing, scale, out);
}

template Status UnpackGrib2Values<float>(const Grib2Packing&, std::span<float>);
template Status UnpackGrib2Values<double>(const Grib2Packing&, std::span<double>);

}  // namespace gridstore::internal_importers
