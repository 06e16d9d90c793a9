// Copyright 2026 The GridStore Authors.
//
// Finds and loads libgridstore_rados.so (rados_plugin.h). No librados here: this file is part of
// every program that can open a store URI.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/storage/rados/rados_plugin.h"

namespace gridstore::storage {
namespace {

struct LoadedPlugin {
  RadosPluginOpenFn open = nullptr;
  std::string error;  // why no plugin could be loaded (empty when open is set)
};

// Appends "PATH (REASON)" to the list of places tried, in one line (the error is one sentence).
void Tried(const std::string& path, std::string_view reason, std::string* why) {
  if (!why->empty()) *why += "; ";
  *why += path + " (" + std::string(reason) + ")";
}

// Loads the plugin at `path`; on failure returns false and appends why to *why.
bool TryLoad(const std::string& path, LoadedPlugin* plugin, std::string* why) {
  // RTLD_LOCAL: the plugin's private copies of GridStore code must not interpose on ours.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* raw = dlerror();  // once: a second call returns null
    std::string_view err = raw != nullptr ? raw : "cannot be loaded";
    // dlerror() repeats the path ("PATH: reason"); keep only the reason.
    if (err.starts_with(path + ": ")) err.remove_prefix(path.size() + 2);
    Tried(path, err, why);
    return false;
  }
  auto abi = reinterpret_cast<RadosPluginAbiFn>(dlsym(handle, kRadosPluginAbiSymbol));
  auto open = reinterpret_cast<RadosPluginOpenFn>(dlsym(handle, kRadosPluginOpenSymbol));
  if (abi == nullptr || open == nullptr) {
    Tried(path, "not a GridStore RADOS plugin: its entry points are missing", why);
    dlclose(handle);
    return false;
  }
  if (abi() != kRadosPluginAbi) {
    Tried(path,
          "built for plugin interface " + std::to_string(abi()) + ", this program needs " +
              std::to_string(kRadosPluginAbi),
          why);
    dlclose(handle);
    return false;
  }
  plugin->open = open;  // never closed: stores it opened may outlive any one caller
  return true;
}

// $GRIDSTORE_PLUGIN_DIR alone if set (the user chose), else the installed directory, then the
// directory of the build this code comes from (tests and programs run from the build tree).
std::vector<std::string> PluginDirectories() {
  if (const char* env = std::getenv("GRIDSTORE_PLUGIN_DIR"); env != nullptr && *env != '\0') {
    return {env};
  }
  return {GRIDSTORE_INSTALLED_PLUGIN_DIR, GRIDSTORE_BUILD_PLUGIN_DIR};
}

const LoadedPlugin& Plugin() {
  static const LoadedPlugin* plugin = [] {
    auto* p = new LoadedPlugin;
    std::string why;
    for (const std::string& dir : PluginDirectories()) {
      if (TryLoad(dir + "/" + kRadosPluginFile, p, &why)) return p;
    }
    p->error = "rados:// stores need the GridStore RADOS plugin (" + std::string(kRadosPluginFile) +
               ", package it with librados), which could not be loaded from " + why;
    return p;
  }();
  return *plugin;
}

}  // namespace

Result<std::unique_ptr<KvStore>> OpenRadosKvStoreViaPlugin(const RadosOptions& options) {
  const LoadedPlugin& plugin = Plugin();
  if (plugin.open == nullptr) return Status::FailedPrecondition(plugin.error);
  Result<std::unique_ptr<KvStore>> result = Status::Internal("the RADOS plugin returned nothing");
  plugin.open(&options, &result);
  return result;
}

}  // namespace gridstore::storage
