// Copyright 2026 The GridStore Authors.
// Writes and reads back one plane through the installed package.
#include <cstdio>

#include "gridstore/grid/grid_store.h"

int main() {
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
  std::puts("installed GridStore works");
  return 0;
}
