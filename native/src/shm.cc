// Shared segments: POSIX shared memory objects in /dev/shm, mapped whole and handed to
// JavaScript as SharedArrayBuffers whose garbage collection unmaps them.
//
//   shmCreate(name, size, sparse?) -> SharedArrayBuffer   new segment, mode 0600, pages
//                                                        reserved and mapped (sparse: neither)
//   shmOpen(name, sparse?)         -> SharedArrayBuffer   existing segment, its whole size
//   shmPrepare(buffer, offset, length)                    backs and maps a range of a sparse one
//   shmUnlink(name)                -> boolean             false if there was nothing to remove
//   shmPlainView(buffer)           -> ArrayBuffer         the same memory, not shared: for copies
//
// Sparse segments are what lets a node's memory grow with use: a rank's segment has room for
// every peer, but a page costs memory only once a rank prepares it (shmPrepare), so a rank that
// talks to three peers pays for three. Preparing is where a full /dev/shm shows, as ENOSPC,
// instead of as a SIGBUS at the first store into a page tmpfs cannot back.
//
// A mapping outlives the name: unlinking only stops new opens, as with any file.
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <string>

#include "args.h"
#include "errors.h"
#include "exports.h"
#include "sab.h"

namespace tsmpi {

namespace {

constexpr double kMaxSegmentBytes = 1099511627776.0;  // 2^40
constexpr size_t kMaxNameLength = 200;

// Names are a single path component of a portable character set: the addon adds the leading
// slash, and "." and ".." would name /dev/shm itself or its parent.
std::string SegmentName(const Napi::CallbackInfo& info, const char* call) {
  std::string name = GetString(info, 0, call, "name");
  bool valid = !name.empty() && name.size() <= kMaxNameLength && name != "." && name != "..";
  for (char c : name) {
    valid = valid && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  }
  if (!valid) {
    ThrowRangeError(info.Env(), std::string(call) + ": name '" + name +
                                    "' must be 1 to 200 characters of [A-Za-z0-9._-], "
                                    "not '.' or '..' (the addon adds the leading '/')");
  }
  return name;
}

void Unmap(void* data, size_t length) { munmap(data, length); }

// Maps the whole object; MAP_POPULATE pre-faults every page now (unless sparse: shmPrepare does
// it per range), because a first-touch fault in the middle of a message copy costs several
// times the copy itself.
void* MapSegment(Napi::Env env, int fd, size_t size, bool sparse, const char* call, const std::string& name) {
  void* data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | (sparse ? 0 : MAP_POPULATE), fd, 0);
  if (data == MAP_FAILED) {
    int err = errno;
    ThrowSystemError(env, err, "mmap",
                     std::string(call) + ": cannot map segment '" + name + "' (" +
                         std::to_string(size) + " bytes): " + ErrnoText(err));
  }
  return data;
}

// Reserving the pages now turns a too-small /dev/shm into ENOSPC here, instead of a SIGBUS at
// the first store into a page tmpfs cannot back.
void ReserveAll(Napi::Env env, int fd, size_t size, const std::string& name) {
  struct statvfs fs;
  unsigned long long freeBytes =
      fstatvfs(fd, &fs) == 0 ? static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize : 0;
  int err;
  do {
    err = posix_fallocate(fd, 0, static_cast<off_t>(size));
  } while (err == EINTR);  // tmpfs gives up on a signal; reserving again is harmless
  if (err == ENOSPC) {
    ThrowSystemError(env, err, "posix_fallocate",
                     "shmCreate: /dev/shm has " + std::to_string(freeBytes) +
                         " bytes free, segment '" + name + "' needs " + std::to_string(size));
  }
  if (err != 0) {
    ThrowSystemError(env, err, "posix_fallocate",
                     "shmCreate: cannot reserve " + std::to_string(size) + " bytes for segment '" +
                         name + "': " + ErrnoText(err));
  }
}

// Closes the descriptor and, until disarmed, unlinks the half-made segment: a failed shmCreate
// leaves nothing behind in /dev/shm.
class CreateGuard {
 public:
  CreateGuard(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~CreateGuard() {
    close(fd_);
    if (!created_) shm_unlink(path_.c_str());
  }
  void Commit() { created_ = true; }

 private:
  int fd_;
  std::string path_;
  bool created_ = false;
};

Napi::Value ShmCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name = SegmentName(info, "shmCreate");
  size_t size = static_cast<size_t>(GetInteger(info, 1, "shmCreate", "size", 1, kMaxSegmentBytes));
  bool sparse = info.Length() > 2 && info[2].ToBoolean();
  std::string path = "/" + name;

  int fd = shm_open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) {
      ThrowSystemError(env, err, "shm_open",
                       "shmCreate: segment '" + name + "' already exists in /dev/shm");
    }
    ThrowSystemError(env, err, "shm_open",
                     "shmCreate: cannot create segment '" + name + "': " + ErrnoText(err));
  }
  CreateGuard guard(fd, path);

  // shm_open applied the umask; the segment must be private to this user whatever it is.
  if (fchmod(fd, 0600) != 0) {
    int err = errno;
    ThrowSystemError(env, err, "fchmod",
                     "shmCreate: cannot set mode 0600 on segment '" + name + "': " + ErrnoText(err));
  }

  if (sparse) {
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
      int err = errno;
      ThrowSystemError(env, err, "ftruncate",
                       "shmCreate: cannot size segment '" + name + "' to " + std::to_string(size) +
                           " bytes: " + ErrnoText(err));
    }
  } else {
    ReserveAll(env, fd, size, name);
  }

  void* data = MapSegment(env, fd, size, sparse, "shmCreate", name);
  Napi::Value sab = NewExternalSharedArrayBuffer(env, data, size, Unmap);
  guard.Commit();
  return sab;
}

Napi::Value ShmOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name = SegmentName(info, "shmOpen");
  bool sparse = info.Length() > 1 && info[1].ToBoolean();
  std::string path = "/" + name;

  int fd = shm_open(path.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) {
      ThrowSystemError(env, err, "shm_open",
                       "shmOpen: segment '" + name + "' does not exist in /dev/shm");
    }
    ThrowSystemError(env, err, "shm_open",
                     "shmOpen: cannot open segment '" + name + "': " + ErrnoText(err));
  }
  struct stat st;
  int statErr = fstat(fd, &st) == 0 ? 0 : errno;
  if (statErr != 0) {
    close(fd);
    ThrowSystemError(env, statErr, "fstat",
                     "shmOpen: cannot read the size of segment '" + name + "': " +
                         ErrnoText(statErr));
  }
  if (st.st_size <= 0) {
    close(fd);
    ThrowSystemError(env, EINVAL, "fstat",
                     "shmOpen: segment '" + name +
                         "' is empty (size 0); expected a segment made by shmCreate");
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* data;
  try {
    data = MapSegment(env, fd, size, sparse, "shmOpen", name);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);  // the mapping keeps the object alive
  return NewExternalSharedArrayBuffer(env, data, size, Unmap);
}

// Backs a range of a (sparse) segment with pages and maps them into this process, so the
// copies that follow take no fault; the range grows to whole pages. Linux before 5.14 has no
// MADV_POPULATE_WRITE: there each page is touched by writing its first byte back (the caller
// prepares only ranges no other process writes yet), and a full /dev/shm is a SIGBUS again.
Napi::Value ShmPrepare(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "shmPrepare";
  Bytes buffer = GetBytes(info, 0, call, "buffer");
  double offset = GetInteger(info, 1, call, "offset", 0, kMaxSegmentBytes);
  double length = GetInteger(info, 2, call, "length", 0, kMaxSegmentBytes);
  if (offset + length > static_cast<double>(buffer.length)) {
    ThrowRangeError(env, std::string(call) + ": range [" + FormatNumber(offset) + ", " + FormatNumber(offset + length) +
                             ") lies past the segment's " + std::to_string(buffer.length) + " bytes");
  }
  if (length == 0) return env.Undefined();
  auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto from = reinterpret_cast<uintptr_t>(buffer.data) + static_cast<uintptr_t>(offset);
  auto to = from + static_cast<uintptr_t>(length);
  from &= ~(page - 1);
  to = (to + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  int err = 0;
  do {
    err = madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0 ? 0 : errno;
  } while (err == EINTR);
  if (err == 0) return env.Undefined();
  if (err == EFAULT || err == ENOMEM) {
    ThrowSystemError(env, ENOSPC, "madvise",
                     std::string(call) + ": /dev/shm cannot back " + std::to_string(to - from) +
                         " more bytes of shared memory (tmpfs full or memory exhausted: " + ErrnoText(err) +
                         "); free /dev/shm or run fewer ranks per node");
  }
  if (err != EINVAL) {
    ThrowSystemError(env, err, "madvise", std::string(call) + ": cannot prepare shared memory: " + ErrnoText(err));
  }
#endif
  for (uintptr_t p = from; p < to; p += page) {
    auto* byte = reinterpret_cast<volatile uint8_t*>(p);
    *byte = *byte;
  }
  return env.Undefined();
}

// The memory of a SharedArrayBuffer (or a view of one) as a plain ArrayBuffer that keeps it alive.
// V8 copies into and out of a SharedArrayBuffer byte by relaxed-atomic byte (TypedArray.set: 1 KiB
// ~50 ns, 4 KiB ~165), into and out of an ArrayBuffer with memmove (~25 and ~60): ch_shmem copies
// payloads through this view and keep their atomics and polls on the shared one. Not for polling:
// the optimizing compiler may assume an ArrayBuffer's bytes change only through the program.
Napi::Value ShmPlainView(const Napi::CallbackInfo& info) {
  Bytes memory = GetBytes(info, 0, "shmPlainView", "buffer");
  return NewPlainView(info.Env(), info[0], memory.data, memory.length);
}

Napi::Value ShmUnlink(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string name = SegmentName(info, "shmUnlink");
  std::string path = "/" + name;
  if (shm_unlink(path.c_str()) == 0) return Napi::Boolean::New(env, true);
  int err = errno;
  if (err == ENOENT) return Napi::Boolean::New(env, false);
  ThrowSystemError(env, err, "shm_unlink",
                   "shmUnlink: cannot remove segment '" + name + "': " + ErrnoText(err));
}

}  // namespace

void RegisterShm(Napi::Env env, Napi::Object exports) {
  exports.Set("shmCreate", Napi::Function::New(env, ShmCreate, "shmCreate"));
  exports.Set("shmOpen", Napi::Function::New(env, ShmOpen, "shmOpen"));
  exports.Set("shmPrepare", Napi::Function::New(env, ShmPrepare, "shmPrepare"));
  exports.Set("shmUnlink", Napi::Function::New(env, ShmUnlink, "shmUnlink"));
  exports.Set("shmPlainView", Napi::Function::New(env, ShmPlainView, "shmPlainView"));
}

}  // namespace tsmpi
