// Copyright 2026 The GridStore Authors.
// Writes and reads back one plane through the installed package, then exports it as netCDF
// (netCDF-C is loaded at run time: the consumer does not link it).
#include <cstdio>
#include <fstream>
#include <string>

#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/grid/grid_store.h"

int main(int argc, char** argv) {
  using namespace gridstore::grid;
  auto store = GridStore::Open("memory://", {.create_if_missing = true});
  if (!store.ok()) return 1;
  DataSetMeta meta;
  meta.id = "installed";
  VariableMeta var;
  var.name = "T";
  var.type = DataType::kFloat32;
  var.shape = {1, 1, 3, 4};
  meta.variables.push_back(var);
  meta.set_status(kStatusDone);  // written in one go; fetches refuse datasets not DONE
  if (!(*store)->PutDataSetMeta(meta).ok()) return 2;
  auto writer = (*store)->GetDataWriter("installed");
  if (!writer.ok()) return 3;
  Grid2D plane = Grid2D::FromValues<float>(3, 4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  if (!(*writer)->WriteGrid2D("T", 0, 0, plane).ok()) return 4;
  auto fetcher = (*store)->GetDataFetcher("installed");
  if (!fetcher.ok()) return 5;
  (*fetcher)->SetOriginShape({0, 0, 2, 3}, {1, 1, 1, 1});
  auto result = (*fetcher)->Fetch();
  if (!result.ok() || result->GetVariable("T")->data<float>()[0] != 11.0f) return 6;
  if (argc != 2) return 7;
  auto full_meta = (*store)->GetDataSetMeta("installed");
  if (!full_meta.ok()) return 8;
  const std::string nc_path = std::string(argv[1]) + "/installed.nc";
  if (auto s = gridstore::formats::WriteNetCdf(nc_path, *full_meta, *result); !s.ok()) {
    std::printf("WriteNetCdf: %s\n", s.ToString().c_str());
    return 9;
  }
  std::ifstream nc(nc_path, std::ios::binary);
  std::string magic(4, '\0');
  if (!nc.read(magic.data(), 4) || magic != "\x89HDF") return 10;  // a netCDF-4 file
  std::puts("installed GridStore works");
  return 0;
}
