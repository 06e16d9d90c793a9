// Copyright 2026 The GridStore Authors.
//
// TablePinningFileSystem (rocksdb_internal.h): why a lazy read-only open pins its table files.

#include <fcntl.h>
#include <rocksdb/metadata.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "gridstore/storage/rocksdb/rocksdb_internal.h"

namespace gridstore::storage::internal_rocksdb {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

TablePinningFileSystem::TablePinningFileSystem()
    : rocksdb::FileSystemWrapper(rocksdb::FileSystem::Default()) {}

TablePinningFileSystem::~TablePinningFileSystem() {
  for (const auto& [name, fd] : fds_) ::close(fd);
}

rocksdb::Status TablePinningFileSystem::Pin(rocksdb::DB* db) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  for (const rocksdb::LiveFileMetaData& file : files) {
    const std::string path = file.directory + "/" + file.relative_filename;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      const std::string what = "cannot pin table file " + path + ": " + std::strerror(err);
      return err == ENOENT ? rocksdb::Status::PathNotFound(what) : rocksdb::Status::IOError(what);
    }
    fds_.emplace(BaseName(path), fd);
  }
  return rocksdb::Status::OK();
}

rocksdb::IOStatus TablePinningFileSystem::NewRandomAccessFile(
    const std::string& fname, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSRandomAccessFile>* result, rocksdb::IODebugContext* dbg) {
  const auto it = fds_.find(BaseName(fname));
  if (it != fds_.end()) {
    // Reopening /proc/self/fd/N opens the file the descriptor holds, deleted or not.
    const rocksdb::IOStatus s = target()->NewRandomAccessFile(
        "/proc/self/fd/" + std::to_string(it->second), options, result, dbg);
    if (s.ok()) return s;  // else no /proc (an odd container): the path, as without pinning
  }
  return target()->NewRandomAccessFile(fname, options, result, dbg);
}

}  // namespace gridstore::storage::internal_rocksdb
