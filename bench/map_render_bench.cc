// Copyright 2026 The GridStore Authors.
//
// Server-side rendering time of the map interfaces (issue 32): a 1024x512 OGC API - Maps image
// and 256x256 WebMercatorQuad tiles of a 0.25 degree global field (1440 x 721), warm (the plane
// decoded and the run's range computed by a first request). The field is real: ERA5's 2 m
// temperature over North America (../shared/data/era5_1995-07-14T12.nc, 237 x 105 cells) repeated
// over the globe, plus 0.5 K per step, 4 steps. Times EdrService::Handle in-process (the server's
// work) and whole requests over a loopback HTTP connection (HttpServer, keep-alive), median and
// 90th percentile of --repeats requests each.
//
// Usage: map_render_bench [--data DIR] [--work DIR] [--repeats N]
#include <arpa/inet.h>
#include <netcdf.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/server/edr_service.h"
#include "gridstore/server/http_server.h"

namespace gridstore::bench {
namespace {

constexpr int64_t kLat = 721, kLon = 1440, kSteps = 4;

struct Options {
  std::string data = "../shared/data";
  std::string work = "/tmp/gridstore-map-bench";
  int repeats = 50;
};

// ERA5's t2m_C (latitude 105 x longitude 237), degrees Celsius.
std::vector<float> ReadEra5(const std::string& data) {
  int nc = 0, var = 0;
  CheckNc(nc_open((data + "/era5_1995-07-14T12.nc").c_str(), NC_NOWRITE, &nc), "opening ERA5");
  CheckNc(nc_inq_varid(nc, "t2m_C", &var), "t2m_C");
  std::vector<float> v(105 * 237);
  CheckNc(nc_get_var_float(nc, var, v.data()), "reading t2m_C");
  nc_close(nc);
  return v;
}

void WriteGlobal(const std::string& store_path, const std::vector<float>& era5) {
  auto store = CheckResult(grid::GridStore::Open(store_path, {.create_if_missing = true}), "store");
  grid::VariableMeta t;
  t.name = "t2m";
  t.type = grid::DataType::kFloat32;
  t.shape = {kSteps, 1, kLat, kLon};
  t.dimension_names = {"time", "", "lat", "lon"};
  t.attributes["units"] = grid::AttributeValue::String("K");
  t.attributes["standard_name"] = grid::AttributeValue::String("air_temperature");
  grid::DataSetMeta meta;
  meta.id = "bench/global025";
  meta.set_status(grid::kStatusDone);
  meta.variables = {t};
  meta.layout.block_x = 256;
  meta.layout.block_y = 256;
  auto coord = [](std::string name, std::vector<double> values, std::string units) {
    grid::Coordinate c;
    c.name = name;
    c.dimensions = {name};
    c.shape = {int64_t(values.size())};
    c.values = std::move(values);
    c.attributes["units"] = grid::AttributeValue::String(std::move(units));
    return c;
  };
  std::vector<double> lats, lons, hours;
  for (int64_t x = 0; x < kLat; ++x) lats.push_back(90.0 - 0.25 * double(x));
  for (int64_t y = 0; y < kLon; ++y) lons.push_back(0.25 * double(y));
  for (int64_t s = 0; s < kSteps; ++s) hours.push_back(6.0 * double(s));
  meta.coordinates = {coord("lat", lats, "degrees_north"), coord("lon", lons, "degrees_east"),
                      coord("time", hours, "hours since 2026-11-27 00:00:00")};
  Check(store->PutDataSetMeta(meta), "meta");
  auto writer = CheckResult(store->GetDataWriter(meta.id), "writer");
  for (int64_t s = 0; s < kSteps; ++s) {
    grid::Grid2D plane(grid::DataType::kFloat32, kLat, kLon);
    for (int64_t x = 0; x < kLat; ++x) {
      for (int64_t y = 0; y < kLon; ++y) {
        plane.data<float>()[size_t(x * kLon + y)] =
            era5[size_t((x % 105) * 237 + y % 237)] + 273.15f + 0.5f * float(s);
      }
    }
    Check(writer->WriteGrid2D("t2m", s, 0, plane), "write");
  }
  Check(writer->Flush(), "flush");
}

struct Stats {
  double median_ms = 0, p90_ms = 0;
  size_t bytes = 0;
};

Stats Summarize(std::vector<double> seconds, size_t bytes) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2] * 1e3, seconds[seconds.size() * 9 / 10] * 1e3, bytes};
}

Stats InProcess(const server::EdrService& service, const std::string& target, int repeats) {
  server::HttpRequest request;
  request.method = "GET";
  request.target = target;
  request.host = "127.0.0.1";
  server::HttpResponse warm = service.Handle(request);  // reads the plane, computes the range
  if (warm.status != 200) Die(target + ": " + std::to_string(warm.status) + " " + warm.body);
  std::vector<double> seconds;
  size_t bytes = 0;
  for (int k = 0; k < repeats; ++k) {
    const Clock::time_point start = Clock::now();
    server::HttpResponse r = service.Handle(request);
    seconds.push_back(Since(start));
    bytes = r.body.size();
  }
  return Summarize(std::move(seconds), bytes);
}

// GETs on one keep-alive loopback connection, each read to its last byte.
Stats OverHttp(int port, const std::string& target, int repeats) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::vector<double> seconds;
  size_t bytes = 0;
  for (int k = 0; k <= repeats; ++k) {  // the first warms
    const Clock::time_point start = Clock::now();
    if (write(fd, request.data(), request.size()) != ssize_t(request.size())) Die("write");
    std::string in;
    size_t need = std::string::npos;
    char buf[65536];
    while (need == std::string::npos || in.size() < need) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) Die("read");
      in.append(buf, size_t(n));
      const size_t end = in.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        std::string head = in.substr(0, end);
        for (char& c : head) c = char(std::tolower(static_cast<unsigned char>(c)));
        const size_t cl = head.find("content-length:");
        if (cl == std::string::npos) Die("no content-length");
        need = end + 4 + std::stoul(head.substr(cl + 15));
        if (head.find(" 200 ") == std::string::npos) Die(target + ": " + in);
      }
    }
    if (k > 0) seconds.push_back(Since(start));
    bytes = need;
  }
  close(fd);
  return Summarize(std::move(seconds), bytes);
}

void Print(const char* what, const char* path, const Stats& s) {
  std::printf("%-34s %-10s median %7.2f ms   p90 %7.2f ms   %8zu bytes\n", what, path, s.median_ms,
              s.p90_ms, s.bytes);
}

int Run(const Options& o) {
  std::filesystem::remove_all(o.work);
  std::filesystem::create_directories(o.work);
  const std::string store = o.work + "/store";
  WriteGlobal(store, ReadEra5(o.data));
  auto source = CheckResult(server::StoreSource::Open(store, {}), "source");
  server::EdrService service(source.get(), server::ServiceOptions{});
  server::HttpServerOptions http;
  http.port = 0;
  http.handle_signals = false;
  http.access_log = false;
  auto listener =
      CheckResult(server::HttpServer::Listen(
                      http, [&](const server::HttpRequest& r) { return service.Handle(r); }),
                  "listen");
  std::thread thread([&] { listener->Run(); });
  const std::string c = "/collections/bench%2Fglobal025";
  const struct {
    const char* what;
    std::string target;
  } cases[] = {
      {"map 1024x512 (CRS84, whole globe)", c + "/map?width=1024&height=512"},
      {"map 1024x512 (EPSG:3857)", c + "/map?width=1024&height=512&crs=EPSG:3857"},
      {"tile 256x256 z2 (2/1/2)", c + "/map/tiles/WebMercatorQuad/2/1/2"},
      {"tile 256x256 z5 (5/11/8)", c + "/map/tiles/WebMercatorQuad/5/11/8"},
      {"tile 256x256 z5, step 3",
       c + "/map/tiles/WebMercatorQuad/5/11/8?datetime=" + "2026-11-27T18:00:00Z"},
      {"legend", c + "/map/legend"},
  };
  std::printf("0.25 degree global field (%lld x %lld), %d requests each, warm\n",
              static_cast<long long>(kLat), static_cast<long long>(kLon), o.repeats);
  for (const auto& k : cases) {
    Print(k.what, "in-process", InProcess(service, k.target, o.repeats));
    Print(k.what, "HTTP", OverHttp(listener->port(), k.target, o.repeats));
  }
  listener->Shutdown();
  thread.join();
  return 0;
}

}  // namespace
}  // namespace gridstore::bench

int main(int argc, char** argv) {
  gridstore::bench::Options o;
  CLI::App app{"Server-side map and tile rendering time (issue 32)"};
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("--data", o.data, "The real data folder (../shared/data)");
  app.add_option("--work", o.work, "A folder for the store (emptied)");
  app.add_option("--repeats", o.repeats, "Requests per case (default 50)");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return gridstore::bench::Run(o);
}
