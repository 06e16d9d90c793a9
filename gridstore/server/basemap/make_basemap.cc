// Copyright 2026 The GridStore Authors.
//
// make_basemap: the viewer's coastlines, lakes and national borders, made at build time from
// GMT's binned GSHHG files (Debian gmt-gshhg-low: binned_GSHHS_l.nc, binned_border_l.nc; GSHHG
// 2.3.7, LGPL) and written as the compact binary asset the server embeds as
// /viewer/basemap.bin and viewer/basemap.js decodes. A build tool, not part of the library or the
// command: it links netCDF-C directly (the library loads it at run time) and runs once per build.
//
// Usage: make_basemap COAST.nc BORDER.nc TOLERANCE_DEGREES OUT.bin
//
// The asset (all integers little-endian; varint = unsigned LEB128 as in protobuf; zigzag maps a
// signed n to the unsigned (n << 1) ^ (n >> 31), so 0,-1,1,-2 are 0,1,2,3):
//
//   basemap := "GSBM" version:u8(=1) units_per_degree:varint n_layers:varint layer*
//   layer   := name_length:varint name:bytes n_lines:varint line*
//   line    := n_points:varint lon0:zigzag lat0:zigzag (dlon:zigzag dlat:zigzag)*(n_points - 1)
//
// Layers, in this order: "coastlines" (GSHHG level 1, land/ocean, Antarctica's ice front),
// "lakes" (level 2, lakes of 500 km2 or more, not river-lakes) and "borders" (WDB-II level 1,
// national). A line's first point is absolute, the others are deltas from the previous point, in
// units of 1/units_per_degree degree (1000: 111 m). Longitudes are in [-180, 180]: no line crosses
// the antimeridian (a line that reaches it stops there and the next one starts on the other side).
//
// How the GSHHG files are read (after GMT's src/gmt_shore.c): the globe is cut into square bins
// of Bin_size_in_minutes, numbered row by row from the north-west, N_bins_in_360_longitude_range
// to a row. Each bin's segments (Id_of_first_segment_in_a_bin, N_segments_in_a_bin) are runs of
// points (Id_of_first_point_in_a_segment) at Relative_{longitude,latitude}_from_SW_corner_of_bin,
// unsigned 16-bit fractions (of 65535) of the bin's side. A shoreline segment's
// Embedded_npts_levels_exit_entry_for_a_segment packs exit side (bits 0-2), entry side (3-5),
// level (6-8) and point count (9-31); Embedded_ANT_flag marks Antarctica's ice-front polygons
// (level 1 here) beside its grounding line (level 6, left out, as GMT does by default). Border
// segments have N_points_for_a_segment and Hierarchial_level_of_a_segment instead.
//
// A polygon that crosses bins is cut at their edges; the pieces are joined again here where
// exactly two pieces meet at a point on a bin edge (the two sides store that point identically),
// so the simplifier sees whole coasts and does not keep a vertex at every bin edge. Lines are then
// simplified by Douglas-Peucker in degrees of lon/lat, a closed ring split at its first point and
// the point farthest from it; rings smaller than the tolerance are dropped. Not GEOS's simplifier:
// the lines are only drawn, so its topology preservation buys nothing visible, and this way the
// asset is the same bytes whatever GEOS is installed.
#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

// A point in units of 1/65535 of a bin side from (-180, -90): exact, so that the two bins that
// share an edge give the same value for a point on it.
struct Node {
  int64_t x, y;
  bool operator==(const Node& o) const { return x == o.x && y == o.y; }
};
using Piece = std::vector<Node>;

struct Layers {
  int bins_per_row = 0;  // of the shoreline file
  std::vector<Piece> coast, lakes, borders;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "make_basemap: %s\n", what.c_str());
  std::exit(1);
}

class NcFile {
 public:
  explicit NcFile(const std::string& path) : path_(path) {
    if (int err = nc_open(path.c_str(), NC_NOWRITE, &id_); err != NC_NOERR) {
      Fail(path + ": " + nc_strerror(err));
    }
  }
  ~NcFile() { nc_close(id_); }
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;

  int Scalar(const char* name) const { return Ints(name).at(0); }
  std::vector<int> Ints(const char* name) const {
    const int var = Var(name);
    std::vector<int> v(Length(var));
    Check(nc_get_var_int(id_, var, v.data()), name);
    return v;
  }
  std::vector<short> Shorts(const char* name) const {
    const int var = Var(name);
    std::vector<short> v(Length(var));
    Check(nc_get_var_short(id_, var, v.data()), name);
    return v;
  }
  std::vector<double> Doubles(const char* name) const {
    const int var = Var(name);
    std::vector<double> v(Length(var));
    Check(nc_get_var_double(id_, var, v.data()), name);
    return v;
  }
  std::vector<signed char> Bytes(const char* name) const {
    const int var = Var(name);
    std::vector<signed char> v(Length(var));
    Check(nc_get_var_schar(id_, var, v.data()), name);
    return v;
  }

 private:
  void Check(int err, const char* name) const {
    if (err != NC_NOERR) Fail(path_ + ": " + name + ": " + nc_strerror(err));
  }
  int Var(const char* name) const {
    int var = 0;
    Check(nc_inq_varid(id_, name, &var), name);
    return var;
  }
  size_t Length(int var) const {
    int dim = 0;
    Check(nc_inq_vardimid(id_, var, &dim), "dimension");
    size_t n = 0;
    Check(nc_inq_dimlen(id_, dim, &n), "dimension length");
    return n;
  }
  std::string path_;
  int id_ = -1;
};

// The bins' geometry, common to both files.
struct Bins {
  int per_row = 0, rows = 0;
  explicit Bins(const NcFile& f)
      : per_row(f.Scalar("N_bins_in_360_longitude_range")),
        rows(f.Scalar("N_bins_in_180_degree_latitude_range")) {
    const int minutes = f.Scalar("Bin_size_in_minutes");
    if (minutes * per_row != 360 * 60 || minutes * rows != 180 * 60) {
      Fail("unexpected bin layout");
    }
  }
  // Bins east of 180 degrees are taken as west of it: x counts from -180.
  Node At(int bin, short dx, short dy) const {
    const int col = bin % per_row, row = bin / per_row;
    const int64_t x =
        (col + per_row / 2) % per_row * int64_t{65535} + static_cast<unsigned short>(dx);
    const int64_t y = (rows - 1 - row) * int64_t{65535} + static_cast<unsigned short>(dy);
    return {x, y};
  }
};

// Appends the points [first, first + n) of bin `bin` as one piece.
Piece ReadPiece(const Bins& bins, int bin, const std::vector<short>& dx,
                const std::vector<short>& dy, size_t first, size_t n) {
  if (first + n > dx.size()) Fail("a segment runs past the point arrays");
  Piece p;
  p.reserve(n);
  for (size_t i = first; i < first + n; ++i) p.push_back(bins.At(bin, dx[i], dy[i]));
  return p;
}

// Lakes smaller than this are left out: 'l' has 4310, most of them in Canada and Finland; 301
// reach it (Lake Geneva, 580 km2, does).
constexpr double kMinLakeKm2 = 500;

void ReadShorelines(const std::string& path, Layers* out) {
  NcFile f(path);
  const Bins bins(f);
  out->bins_per_row = bins.per_row;
  const int n_bins = f.Scalar("N_bins_in_file");
  const std::vector<int> first_seg = f.Ints("Id_of_first_segment_in_a_bin");
  const std::vector<short> n_seg = f.Shorts("N_segments_in_a_bin");
  const std::vector<int> info = f.Ints("Embedded_npts_levels_exit_entry_for_a_segment");
  const std::vector<int> first_point = f.Ints("Id_of_first_point_in_a_segment");
  const std::vector<int> polygon = f.Ints("Id_of_GSHHS_ID");
  const std::vector<signed char> antarctica = f.Bytes("Embedded_ANT_flag");
  const std::vector<double> area = f.Doubles("The_km_squared_area_of_polygons");
  const std::vector<short> dx = f.Shorts("Relative_longitude_from_SW_corner_of_bin");
  const std::vector<short> dy = f.Shorts("Relative_latitude_from_SW_corner_of_bin");
  for (int b = 0; b < n_bins; ++b) {
    for (int s = first_seg[b]; s < first_seg[b] + n_seg[b]; ++s) {
      const unsigned bits = static_cast<unsigned>(info[s]);
      const unsigned level = (bits >> 6) & 7, n = bits >> 9;
      Piece piece = ReadPiece(bins, b, dx, dy, first_point[s], n);
      if (antarctica[s] != 0) {
        out->coast.push_back(std::move(piece));  // the ice front, GMT's default
      } else if (level == 1) {
        out->coast.push_back(std::move(piece));
      } else if (level == 2 && area[polygon[s]] >= kMinLakeKm2) {
        out->lakes.push_back(std::move(piece));  // negative areas are river-lakes
      }
    }
  }
}

void ReadBorders(const std::string& path, Layers* out) {
  NcFile f(path);
  const Bins bins(f);
  if (bins.per_row != out->bins_per_row) Fail("the border and shoreline bins differ");
  const int n_bins = f.Scalar("N_bins_in_file");
  const std::vector<int> first_seg = f.Ints("Id_of_first_segment_in_a_bin");
  const std::vector<short> n_seg = f.Shorts("N_segments_in_a_bin");
  const std::vector<short> n_points = f.Shorts("N_points_for_a_segment");
  const std::vector<short> level = f.Shorts("Hierarchial_level_of_a_segment");
  const std::vector<int> first_point = f.Ints("Id_of_first_point_in_a_segment");
  const std::vector<short> dx = f.Shorts("Relative_longitude_from_SW_corner_of_bin");
  const std::vector<short> dy = f.Shorts("Relative_latitude_from_SW_corner_of_bin");
  for (int b = 0; b < n_bins; ++b) {
    for (int s = first_seg[b]; s < first_seg[b] + n_seg[b]; ++s) {
      if (level[s] != 1) continue;  // 2: states and provinces, 3: maritime
      out->borders.push_back(
          ReadPiece(bins, b, dx, dy, first_point[s], static_cast<unsigned short>(n_points[s])));
    }
  }
}

// Joins pieces end to end where exactly two piece ends meet at a point on a bin edge.
std::vector<Piece> Join(std::vector<Piece> pieces) {
  struct Key {
    size_t operator()(const Node& n) const { return std::hash<int64_t>()(n.x * 40000000 + n.y); }
  };
  std::unordered_map<Node, std::vector<size_t>, Key>
      ends;  // end point -> 2*piece + (0 first, 1 last)
  auto on_edge = [](const Node& n) { return n.x % 65535 == 0 || n.y % 65535 == 0; };
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].size() < 2) continue;
    if (on_edge(pieces[i].front())) ends[pieces[i].front()].push_back(2 * i);
    if (on_edge(pieces[i].back())) ends[pieces[i].back()].push_back(2 * i + 1);
  }
  std::vector<bool> used(pieces.size(), false);
  // The other end that meets `at`, or -1.
  auto partner = [&](const Node& at, size_t self_end) -> long {
    auto it = ends.find(at);
    if (it == ends.end() || it->second.size() != 2) return -1;
    const size_t other = it->second[0] == self_end ? it->second[1] : it->second[0];
    return used[other / 2] ? -1 : static_cast<long>(other);
  };
  std::vector<Piece> out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (used[i] || pieces[i].size() < 2) continue;
    used[i] = true;
    Piece line = std::move(pieces[i]);
    // Forward from the last point, then backward from the first (by reversing).
    size_t tail_end = 2 * i + 1;
    for (int pass = 0; pass < 2; ++pass) {
      for (long e; (e = partner(line.back(), tail_end)) >= 0;) {
        const size_t j = static_cast<size_t>(e) / 2;
        used[j] = true;
        Piece& next = pieces[j];
        if (e % 2 == 1) std::reverse(next.begin(), next.end());  // it met us with its last point
        line.insert(line.end(), next.begin() + 1, next.end());
        tail_end = (e % 2 == 1) ? 2 * j : 2 * j + 1;  // the end of j now at our tail
      }
      std::reverse(line.begin(), line.end());
      tail_end = 2 * i;
    }
    out.push_back(std::move(line));
  }
  return out;
}

struct Point {
  double lon, lat;
};

double SegmentDistance(const Point& p, const Point& a, const Point& b) {
  const double vx = b.lon - a.lon, vy = b.lat - a.lat;
  const double wx = p.lon - a.lon, wy = p.lat - a.lat;
  const double len2 = vx * vx + vy * vy;
  double t = len2 > 0 ? (wx * vx + wy * vy) / len2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(wx - t * vx, wy - t * vy);
}

// Douglas-Peucker on [first, last] (both kept): marks the points to keep.
void Simplify(const std::vector<Point>& p, size_t first, size_t last, double tolerance,
              std::vector<bool>* keep) {
  std::vector<std::pair<size_t, size_t>> stack = {{first, last}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    double worst = -1;
    size_t at = a;
    for (size_t i = a + 1; i < b; ++i) {
      const double d = SegmentDistance(p[i], p[a], p[b]);
      if (d > worst) worst = d, at = i;
    }
    if (worst > tolerance) {
      (*keep)[at] = true;
      stack.push_back({a, at});
      stack.push_back({at, b});
    }
  }
}

std::vector<Point> ToDegrees(const Piece& piece, int bins_per_row) {
  const double scale = 360.0 / bins_per_row / 65535.0;
  std::vector<Point> p;
  p.reserve(piece.size());
  for (const Node& n : piece) p.push_back({-180.0 + n.x * scale, -90.0 + n.y * scale});
  return p;
}

// Simplified lines in degrees; rings whose extent is below the tolerance are dropped.
std::vector<std::vector<Point>> SimplifyAll(const std::vector<Piece>& pieces, int bins_per_row,
                                            double tolerance) {
  std::vector<std::vector<Point>> out;
  for (const Piece& piece : pieces) {
    const std::vector<Point> p = ToDegrees(piece, bins_per_row);
    double w = 1e9, e = -1e9, s = 1e9, n = -1e9;
    for (const Point& q : p) {
      w = std::min(w, q.lon), e = std::max(e, q.lon), s = std::min(s, q.lat),
      n = std::max(n, q.lat);
    }
    const bool closed = piece.front() == piece.back();
    if (closed && e - w < tolerance && n - s < tolerance) continue;
    std::vector<bool> keep(p.size(), false);
    keep.front() = keep.back() = true;
    size_t split = p.size() - 1;
    if (closed) {  // a ring: the point farthest from the first one splits it in two lines
      double far = -1;
      for (size_t i = 1; i + 1 < p.size(); ++i) {
        const double d = std::hypot(p[i].lon - p[0].lon, p[i].lat - p[0].lat);
        if (d > far) far = d, split = i;
      }
      keep[split] = true;
    }
    Simplify(p, 0, split, tolerance, &keep);
    if (split != p.size() - 1) Simplify(p, split, p.size() - 1, tolerance, &keep);
    std::vector<Point> line;
    for (size_t i = 0; i < p.size(); ++i) {
      if (keep[i]) line.push_back(p[i]);
    }
    if (line.size() >= 2) out.push_back(std::move(line));
  }
  return out;
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutZigzag(int64_t v, std::string* out) {
  PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

constexpr int kUnitsPerDegree = 1000;

// Appends one layer; returns its point count.
size_t EncodeLayer(const std::string& name, const std::vector<std::vector<Point>>& lines,
                   std::string* out) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> quantized;
  for (const auto& line : lines) {
    std::vector<std::pair<int64_t, int64_t>> q;
    for (const Point& p : line) {
      const std::pair<int64_t, int64_t> v = {std::llround(p.lon * kUnitsPerDegree),
                                             std::llround(p.lat * kUnitsPerDegree)};
      if (q.empty() || q.back() != v) q.push_back(v);
    }
    if (q.size() >= 2) quantized.push_back(std::move(q));
  }
  PutVarint(name.size(), out);
  out->append(name);
  PutVarint(quantized.size(), out);
  size_t points = 0;
  for (const auto& q : quantized) {
    PutVarint(q.size(), out);
    std::pair<int64_t, int64_t> prev = {0, 0};
    for (const auto& v : q) {
      PutZigzag(v.first - prev.first, out);
      PutZigzag(v.second - prev.second, out);
      prev = v;
    }
    points += q.size();
  }
  std::printf("make_basemap: %s: %zu lines, %zu points\n", name.c_str(), quantized.size(), points);
  return points;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: make_basemap COAST.nc BORDER.nc TOLERANCE_DEGREES OUT.bin\n");
    return 2;
  }
  const double tolerance = std::atof(argv[3]);
  if (!(tolerance >= 0)) Fail("the tolerance must be a number of degrees >= 0");
  Layers layers;
  ReadShorelines(argv[1], &layers);
  ReadBorders(argv[2], &layers);

  std::string out = "GSBM";
  out.push_back(1);  // version
  PutVarint(kUnitsPerDegree, &out);
  PutVarint(3, &out);
  const std::pair<const char*, std::vector<Piece>*> order[] = {
      {"coastlines", &layers.coast}, {"lakes", &layers.lakes}, {"borders", &layers.borders}};
  for (const auto& [name, pieces] : order) {
    const size_t n_pieces = pieces->size();
    std::vector<Piece> joined = Join(std::move(*pieces));
    std::printf("make_basemap: %s: %zu pieces in bins joined into %zu lines\n", name, n_pieces,
                joined.size());
    EncodeLayer(name, SimplifyAll(joined, layers.bins_per_row, tolerance), &out);
  }
  std::ofstream file(argv[4], std::ios::binary | std::ios::trunc);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!file.flush()) Fail(std::string("cannot write ") + argv[4]);
  std::printf("make_basemap: %s: %zu bytes (tolerance %g degrees)\n", argv[4], out.size(),
              tolerance);
  return 0;
}
