// Copyright 2026 The GridStore Authors.
//
// `gridstore fetch -o PATH` for every kind of PATH and every format, through the real binary
// (tools/output_file.h has the rules). Regression tests for the data-safety issue: `-o` used to
// replace a symbolic link (even one to /proc/self/fd/1) with a regular file, and, run as root,
// `-o /dev/full --format npy` deleted the /dev/full device node. Each test checks what arrived,
// and that what was at PATH before is exactly as it was whenever the fetch fails.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using testing::ExpectCliError;
using ::testing::HasSubstr;
using testing::LstatMode;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;
using testing::ScopedTempDir;
using testing::TempLeftovers;

const std::vector<std::string> kFormats = {"nc", "npy", "csv", "json"};

// T of the test file: 2 x 1 x 30 x 40 floats.
constexpr size_t kPoints = 2 * 1 * 30 * 40;

std::string ExpectedT() {
  std::string bytes(kPoints * sizeof(float), '\0');
  for (size_t i = 0; i < kPoints; ++i) {
    const float v = 100.f + 0.25f * static_cast<float>(i);
    std::memcpy(&bytes[i * sizeof(float)], &v, sizeof(v));
  }
  return bytes;
}

// Reads a FIFO to its end on another thread, so that the command can open it for writing.
class FifoReader {
 public:
  explicit FifoReader(std::string path) : path_(std::move(path)) {
    // A handle on the FIFO itself, whatever later happens to its name (a broken command might
    // rename a file over it): through it Get() can always reach the reader.
    keep_fd_ = open(path_.c_str(), O_RDONLY | O_NONBLOCK);
    EXPECT_GE(keep_fd_, 0) << std::strerror(errno);
    result_ = std::async(std::launch::async, [p = path_] {
      std::string data;
      const int fd = open(p.c_str(), O_RDONLY);
      if (fd < 0) return std::string("<cannot open>");
      char buf[1 << 16];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) data.append(buf, static_cast<size_t>(n));
      close(fd);
      return data;
    });
  }
  ~FifoReader() { close(keep_fd_); }
  // What was read. If the writer never came (the command failed first), opens the FIFO for
  // writing itself, so that the reader sees its end.
  std::string Get() {
    const std::string self = "/proc/self/fd/" + std::to_string(keep_fd_);
    while (result_.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
      const int fd = open(self.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) close(fd);
    }
    return result_.get();
  }

 private:
  std::string path_;
  int keep_fd_ = -1;
  std::future<std::string> result_;
};

// Accepts one connection on a Unix socket and reads it to its end.
class SocketReader {
 public:
  explicit SocketReader(const std::string& path) {
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0)
        << std::strerror(errno);
    EXPECT_EQ(listen(listen_fd_, 1), 0);
    result_ = std::async(std::launch::async, [fd = listen_fd_] {
      const int c = accept(fd, nullptr, nullptr);
      if (c < 0) return std::string("<no connection>");
      std::string data;
      char buf[1 << 16];
      ssize_t n;
      while ((n = read(c, buf, sizeof(buf))) > 0) data.append(buf, static_cast<size_t>(n));
      close(c);
      return data;
    });
  }
  ~SocketReader() { close(listen_fd_); }
  // What was read; called after the command ended. If it never connected, shutting the listening
  // socket down ends the accept.
  std::string Get() {
    if (result_.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
      shutdown(listen_fd_, SHUT_RDWR);
    }
    return result_.get();
  }

 private:
  int listen_fd_ = -1;
  std::future<std::string> result_;
};

class FetchOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Everyone may enter the test's folder and read the store: some tests run the command as
    // the unprivileged user "nobody" (root ignores permissions).
    fs::permissions(dir_.path(), fs::perms::others_read | fs::perms::others_exec,
                    fs::perm_options::add);
    fs::create_directory(Out(""));
    fs::permissions(Out(""), fs::perms::all);
    testing::WriteTestNetCdf(dir_.Sub("in.nc"), {"T", "U"});
    RunResult r = Run({"import", dir_.Sub("in.nc"), "--dataset", "d", "--block", "16x16"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : fs::recursive_directory_iterator(store())) {
      fs::permissions(e.path(), fs::perms::others_read | fs::perms::others_exec,
                      fs::perm_options::add);
    }
    fs::permissions(store(), fs::perms::others_read | fs::perms::others_exec,
                    fs::perm_options::add);
  }

  std::string store() const { return dir_.Sub("store"); }
  // The folder outputs go to (mode 0777), or a path in it.
  std::string Out(const std::string& name) const {
    return name.empty() ? dir_.Sub("out") : dir_.Sub("out") + "/" + name;
  }

  RunResult Run(const std::vector<std::string>& args, const std::string& prefix = "") {
    return RunGridStore(dir_.path().string(), store(), args, "", prefix);
  }
  // `gridstore fetch d --variables T --format FORMAT` plus `more`.
  RunResult Fetch(const std::string& format, const std::vector<std::string>& more,
                  const std::string& prefix = "") {
    std::vector<std::string> args = {"fetch", "d", "--variables", "T", "--format", format};
    args.insert(args.end(), more.begin(), more.end());
    return Run(args, prefix);
  }

  // Expects `bytes` to be the whole of T in `format`.
  void ExpectT(const std::string& format, const std::string& bytes) {
    SCOPED_TRACE(format);
    if (format == "npy") {
      EXPECT_EQ(testing::NpyData(bytes), ExpectedT());
    } else if (format == "nc") {
      const std::string check = dir_.Sub("check.nc");
      std::ofstream(check, std::ios::binary) << bytes;
      EXPECT_EQ(testing::NcReadAll(check, "T"), ExpectedT());
      fs::remove(check);
    } else if (format == "csv") {
      EXPECT_EQ(bytes.rfind("@t,@z,@x,@y,time,level,lat,lon,T\n0,0,0,0,0,10,20,30,100\n", 0), 0u)
          << bytes.substr(0, 200);
      EXPECT_EQ(std::count(bytes.begin(), bytes.end(), '\n'), static_cast<long>(kPoints + 1));
    } else {
      auto doc = nlohmann::json::parse(bytes, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << bytes.substr(0, 200);
      ASSERT_EQ(doc["rows"].size(), kPoints);
      EXPECT_EQ(doc["rows"][1]["T"], 100.25);
      EXPECT_EQ(doc["rows"][kPoints - 1]["@x"], 29);
    }
  }

  // The prefix that runs the command as "nobody" when the test runs as root, so that
  // permissions apply; empty otherwise.
  static std::string AsUnprivileged() {
    return geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  }

  ScopedTempDir dir_;
};

TEST_F(FetchOutputTest, NewFileInEveryFormatGetsTheUsualMode) {
  const mode_t mask = umask(0);
  umask(mask);
  for (const std::string& format : kFormats) {
    const std::string path = Out("new." + format);
    RunResult r = Run({"fetch", "d", "--variables", "T", "-o", path});  // format from the name
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
    ExpectT(format, ReadFile(path));
    EXPECT_TRUE(S_ISREG(LstatMode(path)));
    EXPECT_EQ(LstatMode(path) & 07777, 0666 & ~mask) << format;
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

TEST_F(FetchOutputTest, ExistingFileIsReplacedAtomicallyKeepingItsMode) {
  for (const std::string& format : kFormats) {
    const std::string path = Out("old." + format);
    std::ofstream(path) << "old content";
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    // A second name for the old file: written in place, it would change too.
    fs::create_hard_link(path, Out("old-link." + format));
    RunResult r = Fetch(format, {"-o", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, ReadFile(path));
    EXPECT_EQ(LstatMode(path) & 07777, 0640u) << format;
    EXPECT_EQ(ReadFile(Out("old-link." + format)), "old content") << format;
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

// --sync flushes the new file before the rename and syncs its folder after; without it neither
// is synced (~1 ms of a short fetch). Seen with strace, which prints what each fsync named.
TEST_F(FetchOutputTest, SyncFlagSyncsTheFileAndItsFolderAndOnlyThen) {
  const std::string trace = dir_.Sub("trace");
  // LeakSanitizer cannot run under ptrace: off for the traced command in sanitizer builds.
  const std::string strace =
      "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" strace -f -qq -y "
      "-e trace=fsync -o " +
      testing::ShellQuote(trace) + " ";
  for (const bool sync : {false, true}) {
    SCOPED_TRACE(sync);
    const std::string path = Out("synced.csv");
    std::vector<std::string> more = {"-o", path};
    if (sync) more.push_back("--sync");
    RunResult r = Fetch("csv", more, strace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT("csv", ReadFile(path));
    const std::string calls = ReadFile(trace);
    // The temporary file (renamed to synced.csv afterwards) and the output folder.
    EXPECT_EQ(calls.find("gridstore-tmp-") != std::string::npos, sync) << calls;
    EXPECT_EQ(calls.find("<" + fs::canonical(Out("")).string() + ">)") != std::string::npos, sync)
        << calls;
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

TEST_F(FetchOutputTest, FailedFetchLeavesTheExistingFileAsItWas) {
  for (const std::string& format : kFormats) {
    SCOPED_TRACE(format);
    const std::string path = Out("keep." + format);
    std::ofstream(path) << "precious";
    // Refused before the output is opened.
    ExpectCliError(Run({"fetch", "d", "--variables", "nope", "-o", path}), {"'nope'"});
    EXPECT_EQ(ReadFile(path), "precious");
    // A write error after the output was opened: files are limited to 512 bytes (SIGXFSZ
    // ignored, so write() fails with EFBIG instead of killing the command).
    RunResult r = Fetch(format, {"-o", path}, "ulimit -f 1; trap '' XFSZ; ");
    ExpectCliError(r, {"'" + path + "'"});
    if (format != "nc") {
      EXPECT_THAT(r.err, HasSubstr("file too large"));
    }
    EXPECT_EQ(ReadFile(path), "precious");
    EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
  }
  // A fetch that fails after the output was opened: a corrupt block.
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store()));
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, s->GetDataSetMeta("d"));
    std::string key = grid::DataKey(
        grid::BlockAddress{"d", meta.key_incarnation(), "T", grid::kPlaneLayout, 1, 0, 1, 2});
    std::string value;
    ASSERT_OK(KvStoreOf(s.get())->Get({}, storage::Table::kData, key, &value));
    value[value.size() - 5] ^= 0x10;
    ASSERT_OK(KvStoreOf(s.get())->Put({}, storage::Table::kData, key, value));
  }
  for (const std::string& format : kFormats) {
    const std::string path = Out("keep." + format);
    ExpectCliError(Fetch(format, {"-o", path}), {"block (1, 2)"});
    EXPECT_EQ(ReadFile(path), "precious") << format;
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

TEST_F(FetchOutputTest, SymbolicLinksAreFollowedNotReplaced) {
  fs::create_directory(Out("sub"));
  for (const std::string& format : kFormats) {
    SCOPED_TRACE(format);
    // A link, and a chain of two (one relative through another folder).
    const std::string target = Out("sub/target." + format);
    std::ofstream(target) << "old";
    fs::create_symlink("sub/target." + format, Out("link1." + format));
    fs::create_symlink(Out("link1." + format), Out("sub/link2"));
    RunResult r = Fetch(format, {"-o", Out("sub/link2")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, ReadFile(target));
    EXPECT_TRUE(S_ISLNK(LstatMode(Out("link1." + format))));
    EXPECT_TRUE(S_ISLNK(LstatMode(Out("sub/link2"))));
    EXPECT_EQ(fs::read_symlink(Out("sub/link2")), Out("link1." + format));
    fs::remove(Out("sub/link2"));

    // A dangling link creates its target.
    fs::create_symlink("sub/created." + format, Out("dangling." + format));
    r = Fetch(format, {"-o", Out("dangling." + format)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, ReadFile(Out("sub/created." + format)));
    EXPECT_TRUE(S_ISLNK(LstatMode(Out("dangling." + format))));

    // A dangling link into a folder that does not exist: an error naming that folder.
    fs::create_symlink("nofolder/x", Out("broken." + format));
    ExpectCliError(Fetch(format, {"-o", Out("broken." + format)}),
                   {"'" + Out("broken." + format) + "'", "nofolder' does not exist"});
    EXPECT_TRUE(S_ISLNK(LstatMode(Out("broken." + format))));
  }
  // A loop.
  fs::create_symlink("loop-b", Out("loop-a"));
  fs::create_symlink("loop-a", Out("loop-b"));
  ExpectCliError(Fetch("csv", {"-o", Out("loop-a")}), {"too many levels of symbolic links"});
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
  EXPECT_THAT(TempLeftovers(Out("sub")), ::testing::IsEmpty());
}

// `ln -s /proc/self/fd/1 out; gridstore fetch ... -o out` replaced the link with a regular file.
TEST_F(FetchOutputTest, LinkToProcSelfFdWritesToThatDescriptor) {
  fs::create_symlink("/proc/self/fd/1", Out("stdout-link"));
  for (const std::string& format : kFormats) {
    RunResult r = Fetch(format, {"-o", Out("stdout-link")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, r.out);
    EXPECT_TRUE(S_ISLNK(LstatMode(Out("stdout-link"))));
    EXPECT_EQ(fs::read_symlink(Out("stdout-link")), "/proc/self/fd/1");
    // /dev/stdout leads to the same place.
    r = Fetch(format, {"-o", "/dev/stdout"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, r.out);
  }
  EXPECT_TRUE(S_ISLNK(LstatMode("/dev/stdout")));
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

// A descriptor the shell opened (`3>>log`) is written through as it is: appended to, not
// reopened at offset 0 nor replaced.
TEST_F(FetchOutputTest, InheritedDescriptorKeepsItsOffsetAndFlags) {
  const std::string log = Out("log.csv");
  std::ofstream(log) << "earlier lines\n";
  struct stat before;
  ASSERT_EQ(stat(log.c_str(), &before), 0);
  for (const char* path : {"/proc/self/fd/3", "/dev/fd/3"}) {
    RunResult r = Fetch("csv", {"--shape", "1,1,1,2", "-o", path},
                        "exec 3>>" + testing::ShellQuote(log) + "; ");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string rows =
      "@t,@z,@x,@y,time,level,lat,lon,T\n0,0,0,0,0,10,20,30,100\n"
      "0,0,0,1,0,10,20,31,100.25\n";
  EXPECT_EQ(ReadFile(log), "earlier lines\n" + rows + rows);
  struct stat after;
  ASSERT_EQ(stat(log.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  // A descriptor that is not open.
  ExpectCliError(Fetch("csv", {"-o", "/proc/self/fd/9"}), {"'/proc/self/fd/9'"});
}

TEST_F(FetchOutputTest, StandardOutputWithDashOrWithoutOutput) {
  for (const std::string& format : kFormats) {
    RunResult r = Fetch(format, {"-o", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, r.out);
    r = Fetch(format, {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, r.out);
  }
  ExpectCliError(Fetch("csv", {"-o", ""}), {"-o is empty"});
}

TEST_F(FetchOutputTest, FifoIsStreamedTo) {
  for (const std::string& format : kFormats) {
    const std::string fifo = Out("fifo." + format);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    FifoReader reader(fifo);
    RunResult r = Fetch(format, {"-o", fifo});
    const std::string got = reader.Get();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, got);
    EXPECT_TRUE(S_ISFIFO(LstatMode(fifo)));
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

TEST_F(FetchOutputTest, UnixSocketIsStreamedTo) {
  for (const std::string& format : kFormats) {
    const std::string path = Out("sock-" + format);
    SocketReader reader(path);
    RunResult r = Fetch(format, {"-o", path});
    const std::string got = reader.Get();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectT(format, got);
    EXPECT_TRUE(S_ISSOCK(LstatMode(path)));
  }
}

TEST_F(FetchOutputTest, DevNullTakesEveryFormat) {
  struct stat before;
  ASSERT_EQ(stat("/dev/null", &before), 0);
  for (const std::string& format : kFormats) {
    RunResult r = Fetch(format, {"-o", "/dev/null"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    struct stat after;
    ASSERT_EQ(lstat("/dev/null", &after), 0);
    EXPECT_TRUE(S_ISCHR(after.st_mode));
    EXPECT_EQ(after.st_rdev, before.st_rdev);
  }
}

// As root, `-o /dev/full --format npy` deleted the device node. Whoever runs it now, the error
// says why and the device stays. (CI runs as root, so this covers the deletion itself.)
TEST_F(FetchOutputTest, DevFullSaysNoSpaceAndStaysADevice) {
  struct stat before;
  if (stat("/dev/full", &before) != 0) GTEST_SKIP() << "no /dev/full";
  for (const std::string& format : kFormats) {
    ExpectCliError(Fetch(format, {"-o", "/dev/full"}),
                   {"cannot write '/dev/full'", "no space left on device"});
    struct stat after;
    ASSERT_EQ(lstat("/dev/full", &after), 0) << format << ": /dev/full is gone";
    EXPECT_TRUE(S_ISCHR(after.st_mode)) << format;
    EXPECT_EQ(after.st_rdev, before.st_rdev) << format;
    // And as an unprivileged user.
    if (geteuid() == 0) {
      ExpectCliError(Fetch(format, {"-o", "/dev/full"}, AsUnprivileged()),
                     {"no space left on device"});
      ASSERT_EQ(lstat("/dev/full", &after), 0);
      EXPECT_TRUE(S_ISCHR(after.st_mode));
    }
  }
  // A link to it, too.
  fs::create_symlink("/dev/full", Out("full-link"));
  ExpectCliError(Fetch("csv", {"-o", Out("full-link")}), {"no space left on device"});
  EXPECT_TRUE(S_ISLNK(LstatMode(Out("full-link"))));
}

TEST_F(FetchOutputTest, BadDestinationsNameThePathAndTheCause) {
  for (const std::string& format : kFormats) {
    SCOPED_TRACE(format);
    // A folder that does not exist (this said "Permission denied" before).
    ExpectCliError(
        Fetch(format, {"-o", Out("nodir/x." + format)}),
        {"'" + Out("nodir/x." + format) + "'", "the folder '" + Out("nodir") + "' does not exist"});
    EXPECT_FALSE(fs::exists(Out("nodir")));
    // Relative, as typed.
    ExpectCliError(Run({"fetch", "d", "--variables", "T", "-o", "nodir/x." + format}),
                   {"cannot write 'nodir/x." + format + "': the folder 'nodir' does not exist"});
    // A directory.
    fs::create_directory(Out("adir"));
    ExpectCliError(Fetch(format, {"-o", Out("adir")}), {"'" + Out("adir") + "'", "is a directory"});
    EXPECT_TRUE(fs::is_empty(Out("adir")));
    // A file on the way.
    std::ofstream(Out("plain")) << "x";
    ExpectCliError(Fetch(format, {"-o", Out("plain/x")}),
                   {"'" + Out("plain") + "' is not a folder"});
    EXPECT_EQ(ReadFile(Out("plain")), "x");
  }
  EXPECT_THAT(TempLeftovers(Out("")), ::testing::IsEmpty());
}

// Root ignores permissions, so as root the command runs as "nobody" for this (setpriv).
TEST_F(FetchOutputTest, ReadOnlyFolderRefusesWithoutTouchingItsFiles) {
  const std::string ro = Out("ro");
  fs::create_directory(ro);
  std::ofstream(ro + "/existing.csv") << "precious";
  fs::permissions(ro + "/existing.csv", fs::perms::all);  // the file itself is writable
  fs::permissions(ro, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  if (geteuid() != 0) {
    fs::permissions(ro, fs::perms::owner_write, fs::perm_options::remove);
  }
  for (const std::string& format : kFormats) {
    SCOPED_TRACE(format);
    ExpectCliError(Fetch(format, {"-o", ro + "/new." + format}, AsUnprivileged()),
                   {"'" + ro + "/new." + format + "'", "permission denied", "'" + ro + "'"});
    EXPECT_FALSE(fs::exists(ro + "/new." + format));
    // An existing, writable file cannot be replaced atomically there: refused, untouched.
    ExpectCliError(Fetch(format, {"-o", ro + "/existing.csv"}, AsUnprivileged()),
                   {"permission denied"});
    EXPECT_EQ(ReadFile(ro + "/existing.csv"), "precious");
  }
  fs::permissions(ro, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_THAT(TempLeftovers(ro), ::testing::IsEmpty());
}

}  // namespace
}  // namespace gridstore
