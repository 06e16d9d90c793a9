// Copyright 2026 The GridStore Authors.
//
// Why it is built this way: `-o` used to write PATH.partial and rename it over PATH, and remove
// PATH after a failed write. That replaced symbolic links (even /proc/self/fd/1) with regular
// files and, run as root, deleted /dev/full. Here the kind of file PATH names is looked at first
// (lstat, link by link), and the only things ever removed are our own private folder and what
// is in it.
#include "tools/output_file.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <streambuf>
#include <vector>

#include "gridstore/util/internal/strings.h"
#include "tools/text_escape.h"

namespace gridstore::tools {

// A std::streambuf over a file descriptor that remembers why a write failed (errno), which
// std::ofstream forgets: "no space left on device" beats "writing failed".
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd), buffer_(1 << 16) { Reset(); }
  // The errno of the first failed write, or 0.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!Flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return Flush() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // Large blocks (npy data) go straight to the descriptor instead of through the buffer.
    if (n < static_cast<std::streamsize>(buffer_.size())) return std::streambuf::xsputn(s, n);
    if (!Flush() || !WriteAll(s, static_cast<size_t>(n))) return 0;
    return n;
  }

 private:
  void Reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  bool Flush() {
    const bool ok = WriteAll(pbase(), static_cast<size_t>(pptr() - pbase()));
    Reset();
    return ok;
  }
  bool WriteAll(const char* p, size_t n) {
    if (error_ != 0) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error_ = w < 0 ? errno : EIO;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  const int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

namespace {

namespace fs = std::filesystem;

// Symbolic links followed before giving up, as the kernel does (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

// strerror as the end of a sentence: "no space left on device".
std::string ErrnoText(int err) {
  std::string s = std::strerror(err);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && !(s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z')) {
    s[0] = static_cast<char>(s[0] - 'A' + 'a');
  }
  return s;
}

std::string ParentOf(const std::string& path) {
  std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

std::string NameOf(const std::string& path) { return fs::path(path).filename().string(); }

// What a path turned out to name, after following symbolic links.
struct Resolved {
  enum class Type {
    kOwnFd,     // /proc/<our pid>/fd/N: duplicate descriptor N (same offset and flags)
    kOpenPath,  // a FIFO, a character device, or another /proc link: open it for writing
    kSocket,    // a Unix socket: connect to it
    kFile,      // a regular file, existing or not: write beside it, then rename
  };
  Type type = Type::kFile;
  std::string path;  // the resolved path (kOpenPath, kSocket, kFile)
  int fd = -1;       // kOwnFd
  bool exists = false;
  struct stat st {};  // kFile && exists
};

// The nearest folder on the way to `path` that is not one (for ENOTDIR), or "".
std::string FirstNonFolder(const std::string& path) {
  std::string p = ParentOf(path);
  for (int i = 0; i < 256 && p != "." && p != "/"; ++i) {
    struct stat st;
    if (stat(p.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? "" : p;
    if (errno != ENOTDIR) return "";
    p = ParentOf(p);
  }
  return "";
}

// True if `path` names a link in /proc (its folder resolves under /proc): an open file
// description of some process, which must be written through, never replaced.
bool InProc(const std::string& link_path, std::string* folder_real) {
  char* real = realpath(ParentOf(link_path).c_str(), nullptr);
  if (real == nullptr) return false;
  *folder_real = real;
  std::free(real);
  return folder_real->rfind("/proc/", 0) == 0;
}

// "cannot write AT: 'x' is not a folder", naming the first part of `path` that is not one.
Status NotAFolder(const std::string& at, const std::string& path) {
  const std::string bad = FirstNonFolder(path);
  return Status::InvalidArgument("cannot write " + at + ": " +
                                 (bad.empty() ? "a part of the path" : Quote(bad)) +
                                 " is not a folder");
}

// `path` does not exist: a new file (or a dangling link's target), whose folder must exist.
Result<Resolved> ResolveNewFile(const std::string& path, const std::string& at) {
  const std::string parent = ParentOf(path);
  struct stat pst;
  if (stat(parent.c_str(), &pst) != 0) {
    const int perr = errno;
    if (perr == ENOENT) {
      return Status::NotFound("cannot write " + at + ": the folder " + Quote(parent) +
                              " does not exist");
    }
    if (perr == ENOTDIR) return NotAFolder(at, path);
    return Status::FailedPrecondition("cannot write " + at + ": the folder " + Quote(parent) +
                                      ": " + ErrnoText(perr));
  }
  if (!S_ISDIR(pst.st_mode)) {
    return Status::InvalidArgument("cannot write " + at + ": " + Quote(parent) +
                                   " is not a folder");
  }
  Resolved r;
  r.type = Resolved::Type::kFile;
  r.path = path;
  return r;
}

// A link in /proc (its folder resolved to `folder`): an open file description to write through.
Resolved ResolveProcLink(const std::string& link, const std::string& folder) {
  Resolved r;
  const std::string name = NameOf(link);
  const bool digits = !name.empty() && name.size() < 10 &&
                      name.find_first_not_of("0123456789") == std::string::npos;
  if (digits && folder == "/proc/" + std::to_string(getpid()) + "/fd") {
    // Our own descriptor: duplicate it, so that writes continue where the shell's redirection
    // (`>`, `>>`) put them. Opening the link would start at offset 0.
    r.type = Resolved::Type::kOwnFd;
    r.fd = std::atoi(name.c_str());
  } else {
    r.type = Resolved::Type::kOpenPath;
    r.path = link;
  }
  return r;
}

Result<Resolved> Resolve(const std::string& given, const std::string& shown) {
  std::string cur = given;
  std::string via;  // for messages: where the links led
  for (int hops = 0; hops <= kMaxLinks; ++hops) {
    const std::string at = via.empty() ? shown : shown + " (a link to " + Quote(cur) + ")";
    struct stat st;
    if (lstat(cur.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT) return ResolveNewFile(cur, at);
      if (err == ENOTDIR) return NotAFolder(at, cur);
      return Status::FailedPrecondition("cannot write " + at + ": " + ErrnoText(err));
    }
    if (S_ISLNK(st.st_mode)) {
      std::string folder;
      if (InProc(cur, &folder)) return ResolveProcLink(cur, folder);
      std::vector<char> buf(PATH_MAX + 1);
      const ssize_t n = readlink(cur.c_str(), buf.data(), buf.size() - 1);
      if (n < 0) return Status::FailedPrecondition("cannot write " + at + ": " + ErrnoText(errno));
      const std::string target(buf.data(), static_cast<size_t>(n));
      cur = !target.empty() && target[0] == '/'
                ? target
                : (fs::path(ParentOf(cur)) / target).lexically_normal().string();
      via = cur;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument("cannot write " + at +
                                     ": it is a directory (give -o a file name)");
    }
    if (S_ISBLK(st.st_mode)) {
      return Status::InvalidArgument("cannot write " + at +
                                     ": it is a block device, which gridstore does not write to");
    }
    Resolved r;
    r.path = cur;
    r.exists = true;
    r.st = st;
    r.type = S_ISREG(st.st_mode)    ? Resolved::Type::kFile
             : S_ISSOCK(st.st_mode) ? Resolved::Type::kSocket
                                    : Resolved::Type::kOpenPath;
    return r;
  }
  return Status::InvalidArgument("cannot write " + shown + ": too many levels of symbolic links");
}

// A private folder (mode 0700) in `folder`, named after `name` so that one left behind by a
// crash says where it came from.
Result<std::string> MakePrivateFolder(const std::string& folder, const std::string& name,
                                      const std::string& shown) {
  std::string base = name.substr(0, 64);
  std::string templ = folder + "/." + base + ".gridstore-tmp-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    const int err = errno;
    return Status::FailedPrecondition("cannot write " + shown +
                                      ": cannot create a file in the folder " + Quote(folder) +
                                      ": " + ErrnoText(err));
  }
  return std::string(buf.data());
}

// The process's umask. /proc/self/status has it (Linux 4.7+) without changing it; umask(2) can
// only read it by setting it, which a thread creating a file meanwhile would see.
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  const mode_t mask = umask(0);
  umask(mask);
  return mask;
}

int OpenRetrying(const char* path, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = ::open(path, flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// A descriptor for a destination written as a stream (all but kFile): our own descriptor
// duplicated, a FIFO or device opened, or a Unix socket connected to. Errors name `shown`.
Result<int> OpenStreamed(const Resolved& r, const std::string& shown) {
  if (r.type == Resolved::Type::kOwnFd) {
    const int fd = fcntl(r.fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
      return Status::FailedPrecondition("cannot write " + shown + ": descriptor " +
                                        std::to_string(r.fd) + ": " + ErrnoText(errno));
    }
    return fd;
  }
  if (r.type == Resolved::Type::kOpenPath) {
    // A FIFO blocks here until its reader opens it, which is what streaming to it means.
    const int fd = OpenRetrying(r.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      return Status::FailedPrecondition("cannot write " + shown + ": " +
                                        (err == EISDIR ? "it is a directory" : ErrnoText(err)));
    }
    return fd;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (r.path.size() >= sizeof(addr.sun_path)) {
    return Status::InvalidArgument("cannot write " + shown +
                                   ": the socket's path is too long to connect to");
  }
  std::memcpy(addr.sun_path, r.path.data(), r.path.size());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status::FailedPrecondition("cannot write " + shown +
                                      ": connecting to the socket: " + ErrnoText(err));
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path, WriterKind writer,
                                                     Durability durability) {
  std::unique_ptr<OutputFile> out(new OutputFile);
  out->writer_ = writer;
  out->durability_ = durability;
  const bool to_stdout = path.empty() || path == "-";
  out->display_ = to_stdout ? "standard output" : Quote(path);
  std::string temp_name = "output";
  if (to_stdout) {
    out->fd_ = STDOUT_FILENO;
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(Resolved r, Resolve(path, out->display_));
    if (r.type != Resolved::Type::kFile) {
      GRIDSTORE_ASSIGN_OR_RETURN(out->fd_, OpenStreamed(r, out->display_));
      out->own_fd_ = true;
    } else {
      out->target_ = r.path;
      if (r.exists) {
        out->replaces_ = true;
        out->mode_ = r.st.st_mode & 0777;
        out->uid_ = r.st.st_uid;
        out->gid_ = r.st.st_gid;
      } else {
        out->mode_ = 0666 & ~CurrentUmask();
      }
      temp_name = NameOf(r.path);
      GRIDSTORE_ASSIGN_OR_RETURN(out->temp_dir_,
                                 MakePrivateFolder(ParentOf(r.path), temp_name, out->display_));
    }
  }
  if (writer == WriterKind::kPath) {
    if (out->target_.empty()) {
      // A stream gets a finished file: netCDF-C writes by path and seeks, so write one in $TMPDIR.
      std::error_code ec;
      fs::path tmp = fs::temp_directory_path(ec);
      if (ec) tmp = "/tmp";
      GRIDSTORE_ASSIGN_OR_RETURN(out->temp_dir_,
                                 MakePrivateFolder(tmp.string(), "gridstore-fetch", out->display_));
    }
    out->temp_file_ = out->temp_dir_ + "/output";
    out->writer_path_ = out->temp_file_;
    return out;
  }
  if (!out->target_.empty()) {
    out->temp_file_ = out->temp_dir_ + "/output";
    out->fd_ = OpenRetrying(out->temp_file_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out->fd_ < 0) {
      const int err = errno;
      return Status::FailedPrecondition("cannot write " + out->display_ +
                                        ": creating a temporary file beside it: " + ErrnoText(err));
    }
    out->own_fd_ = true;
  }
  out->buf_ = std::make_unique<FdStreamBuf>(out->fd_);
  out->stream_ = std::make_unique<std::ostream>(out->buf_.get());
  return out;
}

OutputFile::~OutputFile() { Abort(); }

std::ostream& OutputFile::stream() { return *stream_; }

Status OutputFile::WriteError() const {
  if (buf_ == nullptr || buf_->error() == 0) return Status::OK();
  return Status::Unavailable("cannot write " + display_ + ": " + ErrnoText(buf_->error()));
}

Status OutputFile::Commit() {
  if (done_) return Status::FailedPrecondition("the output " + display_ + " is already closed");
  Status s;
  if (stream_ != nullptr) {
    stream_->flush();
    s = WriteError();
    if (s.ok() && !*stream_) s = Status::Unavailable("cannot write " + display_);
  }
  if (s.ok() && !target_.empty()) {
    s = CommitFile();
  } else if (s.ok() && writer_ == WriterKind::kPath) {
    s = CopyWriterFileToStream();
  }
  if (s.ok() && own_fd_ && fd_ >= 0) {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0 && errno != EINTR)
      s = Status::Unavailable("cannot write " + display_ + ": " + ErrnoText(errno));
  }
  if (!s.ok()) {
    Abort();
    return s;
  }
  if (!temp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);  // the streamed netCDF file, already copied
    temp_dir_.clear();
  }
  done_ = true;
  return Status::OK();
}

Status OutputFile::CommitFile() {
  auto fail = [&](const std::string& what, int err) {
    return Status::Unavailable("cannot write " + display_ + ": " + what + ErrnoText(err));
  };
  int fd = fd_;
  if (writer_ == WriterKind::kPath) {
    fd = OpenRetrying(temp_file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail("", errno);
  }
  struct stat st;
  if (replaces_ && fstat(fd, &st) == 0 && (st.st_uid != uid_ || st.st_gid != gid_)) {
    // Keep the replaced file's owner when we may (root may; others get their own file, as any
    // new file would be). Not a failure of the output either way.
    if (fchown(fd, uid_, gid_) != 0) errno = 0;
  }
  Status s;
  if (fchmod(fd, mode_) != 0) {
    s = fail("", errno);
  } else if (durability_ == Durability::kSynced && fsync(fd) != 0) {
    s = fail("", errno);
  }
  const int rc = ::close(fd);
  if (fd == fd_) fd_ = -1;
  if (s.ok() && rc != 0 && errno != EINTR) s = fail("", errno);
  if (!s.ok()) return s;
  if (::rename(temp_file_.c_str(), target_.c_str()) != 0) {
    return fail("replacing it: ", errno);
  }
  std::error_code ec;
  fs::remove(temp_dir_, ec);  // now empty
  temp_dir_.clear();
  if (durability_ != Durability::kSynced) return Status::OK();
  // Make the rename itself durable; a folder that cannot be synced loses nothing we wrote.
  const int dir = OpenRetrying(ParentOf(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    if (fsync(dir) != 0) errno = 0;
    ::close(dir);
  }
  return Status::OK();
}

Status OutputFile::CopyWriterFileToStream() {
  const int in = OpenRetrying(writer_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    return Status::Unavailable("cannot write " + display_ +
                               ": reading the temporary file: " + ErrnoText(errno));
  }
  FdStreamBuf out(fd_);
  std::vector<char> buf(1 << 20);
  Status s;
  for (;;) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = Status::Unavailable("cannot write " + display_ +
                              ": reading the temporary file: " + ErrnoText(errno));
      break;
    }
    if (n == 0) break;
    if (out.sputn(buf.data(), n) != n || out.error() != 0) break;
  }
  out.pubsync();  // a failure is in out.error()
  if (s.ok() && out.error() != 0) {
    s = Status::Unavailable("cannot write " + display_ + ": " + ErrnoText(out.error()));
  }
  ::close(in);
  return s;
}

void OutputFile::Abort() {
  if (done_) return;
  done_ = true;
  stream_.reset();
  buf_.reset();
  if (own_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_dir_.empty()) {
    // Only our private folder: what the destination was is untouched.
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);
    temp_dir_.clear();
  }
}

}  // namespace gridstore::tools
