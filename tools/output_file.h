// Copyright 2026 The GridStore Authors.
//
// The destination of `gridstore fetch -o PATH`, opened so that writing it can never destroy what
// is not ours. What PATH names decides how it is written (docs/usage.md, "Output files"):
//
//   - "" or "-": standard output, streamed to (whatever it is: a terminal, a pipe, a file).
//   - a symbolic link: followed (a chain too; a dangling link creates its target). A link in /proc
//     (/proc/self/fd/N, and /dev/stdout or /dev/fd/N, which lead there) names an open file
//     descriptor: it is streamed to, as standard output is, and the link is never replaced.
//   - a FIFO, a character device or a Unix socket: streamed to.
//   - a regular file, existing or new: written to a temporary file in a private folder beside it,
//     then renamed over it only when everything was written (with Durability::kSynced, flushed to
//     disk first and the rename synced too, so that the new file survives a power failure). The
//     replaced file's permission bits are kept; a new file gets 0666 & ~umask. On failure the
//     temporary folder is removed and the file is exactly as it was (or still absent).
//   - a directory or a block device: refused.
//
// Writers that need a file of their own (netCDF-C writes by path, and seeks) get a path in the
// private folder; for a streamed destination that folder is in $TMPDIR and the finished file is
// copied to the stream, then removed. Errors name the path as given and the real cause (the
// folder does not exist, permission denied, no space left on device, ...).
//
// Thread-compatible: one thread uses an OutputFile at a time.
#ifndef GRIDSTORE_TOOLS_OUTPUT_FILE_H_
#define GRIDSTORE_TOOLS_OUTPUT_FILE_H_

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <string>

#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::tools {

class FdStreamBuf;

class OutputFile {
 public:
  // How the writer produces its bytes.
  enum class WriterKind {
    kStream,  // through stream()
    kPath,    // it creates the file writer_path() itself (netCDF)
  };

  // What Commit() guarantees beyond "the destination is the old file or the whole new one".
  enum class Durability {
    // Nothing more, as cp, ncks and nccopy: the file may still be in the page cache when the
    // command returns. (On ext4, the default, a rename over an existing file still writes the
    // new data before the rename becomes durable.) Saves ~1 ms per output, most of a short fetch.
    kDefault,
    // fsync of the file before the rename and of its folder after: the output is on disk when
    // Commit() returns (`fetch --sync`).
    kSynced,
  };

  // Opens `path` as described above. Nothing at `path` is changed by opening (a FIFO's reader is
  // waited for). Errors name `path`: NotFound (its folder does not exist), InvalidArgument (a
  // directory, a block device, not a folder on the way), FailedPrecondition (permission denied,
  // read-only file system, and the other reasons the system gives).
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& path, WriterKind writer,
                                                  Durability durability = Durability::kDefault);

  // Abort()s unless Commit() succeeded.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // REQUIRES: opened with WriterKind::kStream. Valid until this object is destroyed. A failed
  // write sets the stream's badbit; Commit() reports the cause.
  std::ostream& stream();
  // REQUIRES: opened with WriterKind::kPath. Where the writer must create its file (nothing is
  // there yet); in a folder only this process uses.
  const std::string& writer_path() const { return writer_path_; }

  // Finishes the output: flushes it (and syncs it, if kSynced) and, for a file, renames it over the
  // destination; for a streamed kPath output, copies the writer's file to the stream. Unavailable
  // naming the path and the cause (no space left on device, ...) if anything failed; the
  // destination is then left as it was (a stream may have received part of the output: it cannot be
  // taken back).
  Status Commit();
  // OK, or Unavailable naming the path and the cause if a write to stream() failed (for a writer
  // that stopped at a bad stream: its own message cannot know the cause).
  Status WriteError() const;
  // Gives up: removes the temporary folder and its files. A file destination is left exactly as
  // it was. Idempotent.
  void Abort();

  // The path as given ("standard output" for "" and "-"), escaped for messages.
  const std::string& display_name() const { return display_; }

 private:
  OutputFile() = default;
  Status Fail(const std::string& what, int err) const;
  Status CopyWriterFileToStream();
  Status CommitFile();

  std::string display_;
  WriterKind writer_ = WriterKind::kStream;
  Durability durability_ = Durability::kDefault;
  // The descriptor written through: the stream destination, or the temporary file (kStream
  // writers of a file destination). -1 if none.
  int fd_ = -1;
  bool own_fd_ = false;
  // For a file destination: the resolved path the temporary file is renamed to.
  std::string target_;
  mode_t mode_ = 0;  // permission bits the finished file gets
  uid_t uid_ = 0;    // owner of the file it replaces, if any
  gid_t gid_ = 0;
  bool replaces_ = false;
  std::string temp_dir_;     // private folder: ours to remove
  std::string temp_file_;    // the file in it that becomes the output
  std::string writer_path_;  // == temp_file_ for kPath writers
  std::unique_ptr<FdStreamBuf> buf_;
  std::unique_ptr<std::ostream> stream_;
  bool done_ = false;
};

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_OUTPUT_FILE_H_
