// Copyright 2026 The GridStore Authors.
#include "gridstore/util/internal/shared_library.h"

#include <dlfcn.h>

namespace gridstore {

Result<void*> OpenSharedLibrary(const std::string& library, std::string_view what,
                                std::string_view remedy) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Status::FailedPrecondition(std::string(what) + " is unavailable: cannot load " +
                                      library + " (" + (why ? why : "unknown error") + "); " +
                                      std::string(remedy));
  }
  return handle;
}

void* FindSymbol(void* handle, const char* name, std::string* missing) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) *missing += (missing->empty() ? "" : ", ") + std::string(name);
  return symbol;
}

}  // namespace gridstore
