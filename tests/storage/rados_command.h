// Copyright 2026 The GridStore Authors.
//
// The `rados` command on the test cluster, to check the RADOS backend's objects from outside.
#ifndef GRIDSTORE_TESTS_STORAGE_RADOS_COMMAND_H_
#define GRIDSTORE_TESTS_STORAGE_RADOS_COMMAND_H_

#include <set>
#include <string>

#include "gridstore/util/result.h"

namespace gridstore::testing {

// Runs `rados ARGS` (through /bin/sh) on the test pool (and namespace, if given); returns its
// stdout, or an error with its output.
Result<std::string> RadosCommand(const std::string& ns, const std::string& args);

// The non-empty lines of `text`.
std::set<std::string> Lines(const std::string& text);

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_STORAGE_RADOS_COMMAND_H_
