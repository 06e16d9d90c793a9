// Copyright 2026 The GridStore Authors.
//
// The viewer's static files (gridstore/server/viewer/) and its basemap (basemap.bin, made at build
// time by gridstore/server/basemap/), compiled into the binary by embed_viewer.cmake: the service
// answers /viewer from memory and needs nothing from the internet.
#ifndef GRIDSTORE_SERVER_INTERNAL_VIEWER_ASSETS_H_
#define GRIDSTORE_SERVER_INTERNAL_VIEWER_ASSETS_H_

#include <string_view>
#include <vector>

namespace gridstore::server {

struct ViewerAsset {
  std::string_view name;     // "index.html", "viewer.js", ...
  std::string_view content;  // text, or bytes (basemap.bin); static: valid for the process
};
const std::vector<ViewerAsset>& ViewerAssets();

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_VIEWER_ASSETS_H_
