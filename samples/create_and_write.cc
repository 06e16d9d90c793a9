// Copyright 2026 The GridStore Authors.
//
// Creates a store and a dataset with three 4-D variables, writes every plane, and marks the
// dataset DONE: the lifecycle an import follows (meta with INIT, then data, then DONE).

#include "sample_common.h"

int main(int argc, char** argv) {
  using namespace gridstore::grid;
  using samples::Check;
  using samples::CheckResult;
  auto store =
      CheckResult(GridStore::Open(samples::StorePath(argc, argv), {.create_if_missing = true}),
                  "opening the store");
  Check(store->CreateStore(), "CreateStore");  // idempotent

  const auto& s = samples::kShape;
  DataSetMeta meta;
  meta.id = samples::kDataSetId;
  meta.layout.block_x = 64;
  meta.layout.block_y = 64;
  for (const char* name : samples::kVariables) {
    VariableMeta var;
    var.name = name;
    var.type = DataType::kFloat32;
    var.shape = samples::kShape;
    var.dimension_names = {"time", "level", "lat", "lon"};
    var.set_fill_value<float>(-9999.0f);
    meta.variables.push_back(var);
  }
  // Coordinates, so that the data can be asked for by longitude, latitude, time and level
  // (samples/extract_by_coordinates.cc): CF units, as an import from netCDF keeps them.
  auto coordinate = [](std::string name, std::string units, auto value_of, int64_t n) {
    Coordinate c;
    c.name = name;
    c.dimensions = {name};
    c.shape = {n};
    for (int64_t i = 0; i < n; ++i) c.values.push_back(value_of(i));
    c.attributes["units"] = AttributeValue::String(units);
    return c;
  };
  meta.coordinates = {
      coordinate(
          "time", "hours since 2026-11-21 00:00:00", [](int64_t i) { return 6.0 * i; }, s[kT]),
      coordinate(
          "level", "hPa", [](int64_t i) { return 1000.0 - 50.0 * i; }, s[kZ]),
      coordinate("lat", "degrees_north", samples::LatitudeOf, s[kX]),
      coordinate("lon", "degrees_east", samples::LongitudeOf, s[kY])};
  meta.attributes["source"] = AttributeValue::String("sample");
  meta.set_status(kStatusInit);
  Check(store->PutDataSetMeta(meta), "PutDataSetMeta");

  auto writer = CheckResult(store->GetDataWriter(meta.id), "GetDataWriter");
  for (int v = 0; v < 3; ++v) {
    for (int64_t t = 0; t < s[kT]; ++t) {
      for (int64_t z = 0; z < s[kZ]; ++z) {
        Grid2D plane(DataType::kFloat32, s[kX], s[kY]);
        for (int64_t x = 0; x < s[kX]; ++x)
          for (int64_t y = 0; y < s[kY]; ++y)
            plane.at<float>(x, y) = samples::SampleValue(v, t, z, x, y);
        // The pipelined path: compression overlaps with producing the next plane.
        Check(writer->SubmitGrid2D(samples::kVariables[v], t, z, std::move(plane)), "SubmitGrid2D");
      }
    }
  }
  // Publishes the dataset (DONE, create_time) only if every plane was written.
  Check(writer->Finish(), "Finish");
  WriteStats stats = writer->stats();
  std::printf("wrote %ld planes, %ld blocks: %ld raw bytes stored in %ld (ratio %.2f)\n",
              long(stats.planes), long(stats.blocks), long(stats.raw_bytes),
              long(stats.stored_bytes), double(stats.raw_bytes) / double(stats.stored_bytes));
  return 0;
}
