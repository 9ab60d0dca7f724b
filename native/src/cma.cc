// Single copy between processes (cross-memory attach): process_vm_readv/process_vm_writev move
// bytes straight between this process and another, with no shared buffer in between.
//
//   addressOf(view)                                     -> address of its first byte
//   cmaRead(pid, local, remoteAddr)                     -> bytes read into local
//   cmaWrite(pid, local, remoteAddr)                    -> bytes written from local
//   cmaReadv(pid, localIov, localCount, remoteIov, remoteCount)  -> bytes read
//   cmaWritev(pid, localIov, localCount, remoteIov, remoteCount) -> bytes written
//   cmaProbe(pid, remoteAddr)                           -> { ok, errno }
//
// Addresses are plain numbers: x86-64 user addresses are below 2^47, exact in a double, and a
// number costs no allocation where a BigInt would. An iovec list is a Float64Array of
// (address, length) pairs that the caller fills in place, so a vectored call allocates nothing.
//
// The kernel checks every local and remote range itself: a bad address gives EFAULT, never a
// crash. Permission is that of ptrace attach (same user, and Yama ptrace_scope 0 or a
// PR_SET_PTRACER grant; no seccomp filter refusing the call), which cmaProbe reports.
#include <errno.h>
#include <limits.h>
#include <sys/uio.h>

#include <cinttypes>
#include <cstdio>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

namespace {

// Linux caps each call at IOV_MAX (1024) entries per side; longer lists go in several calls.
constexpr size_t kIovChunk = IOV_MAX;

std::string Hex(uint64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, address);
  return buf;
}

pid_t GetPid(const Napi::CallbackInfo& info, const char* call) {
  return static_cast<pid_t>(GetInteger(info, 0, call, "pid", 1, INT_MAX));
}

uint64_t GetAddress(const Napi::CallbackInfo& info, size_t index, const char* call,
                    const char* name) {
  return static_cast<uint64_t>(GetInteger(info, index, call, name, 0, kMaxSafeInteger));
}

ssize_t Transfer(bool write, pid_t pid, const iovec* local, size_t localCount,
                 const iovec* remote, size_t remoteCount) {
  return write ? process_vm_writev(pid, local, localCount, remote, remoteCount, 0)
               : process_vm_readv(pid, local, localCount, remote, remoteCount, 0);
}

// A position in an iovec list given as (address, length) pairs of doubles.
struct IovCursor {
  const double* pairs;
  size_t count;
  size_t index = 0;
  uint64_t offset = 0;  // bytes of pairs[index] already moved

  bool AtEnd() const { return index == count; }

  // Fills up to max entries from the current position; zero-length entries are skipped.
  size_t Fill(iovec* out, size_t max) const {
    size_t n = 0;
    uint64_t skip = offset;
    for (size_t i = index; i < count && n < max; ++i) {
      uint64_t base = static_cast<uint64_t>(pairs[2 * i]);
      uint64_t length = static_cast<uint64_t>(pairs[2 * i + 1]);
      if (length > skip) {
        out[n].iov_base = reinterpret_cast<void*>(static_cast<uintptr_t>(base + skip));
        out[n].iov_len = static_cast<size_t>(length - skip);
        ++n;
      }
      skip = 0;
    }
    return n;
  }

  void Advance(uint64_t bytes) {
    while (index < count) {
      uint64_t left = static_cast<uint64_t>(pairs[2 * index + 1]) - offset;
      if (bytes < left) {
        offset += bytes;
        return;
      }
      bytes -= left;
      offset = 0;
      ++index;
    }
  }
};

// Checks an iovec list once, before any byte moves, so a bad entry fails the whole call cleanly.
IovCursor GetIovList(const Napi::CallbackInfo& info, size_t arrayIndex, const char* call,
                     const char* arrayName, const char* countName) {
  IovPairs list = GetIovPairs(info, arrayIndex, call, arrayName, countName);
  if (list.total > static_cast<double>(SSIZE_MAX)) {
    ThrowRangeError(info.Env(), std::string(call) + ": " + arrayName + " lists " + FormatNumber(list.total) +
                                    " bytes; at most SSIZE_MAX can move in one call");
  }
  return IovCursor{list.pairs, list.count};
}

[[noreturn]] void ThrowTransferError(Napi::Env env, int err, bool write, const char* call,
                                     pid_t pid, const std::string& where, uint64_t done) {
  const char* syscall = write ? "process_vm_writev" : "process_vm_readv";
  std::string message = std::string(call) + ": " + syscall + (write ? " to pid " : " from pid ") +
                         std::to_string(pid) + " " + where + " failed after " +
                         std::to_string(done) + " bytes: " + ErrnoText(err);
  if (err == EPERM) message += " (ptrace permission: Yama ptrace_scope, seccomp or another user)";
  if (err == ESRCH) message += " (no such process)";
  ThrowSystemError(env, err, syscall, message);
}

Napi::Value Copy(const Napi::CallbackInfo& info, bool write) {
  const char* call = write ? "cmaWrite" : "cmaRead";
  Napi::Env env = info.Env();
  pid_t pid = GetPid(info, call);
  Bytes local = GetBytes(info, 1, call, "local");
  uint64_t remote = GetAddress(info, 2, call, "remoteAddr");
  size_t done = 0;
  while (done < local.length) {
    iovec l{local.data + done, local.length - done};
    iovec r{reinterpret_cast<void*>(static_cast<uintptr_t>(remote + done)), local.length - done};
    ssize_t n = Transfer(write, pid, &l, 1, &r, 1);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    int err = n < 0 ? errno : EFAULT;  // no progress and no error: an unmapped remote page
    if (err == EINTR) continue;
    ThrowTransferError(env, err, write, call, pid,
                       "at " + Hex(remote) + " (" + std::to_string(local.length) + " bytes)",
                       done);
  }
  return Napi::Number::New(env, static_cast<double>(done));
}

// The kernel pairs the two lists as byte streams; each call moves min(local, remote) of what
// it is given and may stop early, so both cursors advance by what actually moved.
Napi::Value CopyVector(const Napi::CallbackInfo& info, bool write) {
  const char* call = write ? "cmaWritev" : "cmaReadv";
  Napi::Env env = info.Env();
  pid_t pid = GetPid(info, call);
  IovCursor local = GetIovList(info, 1, call, "localIov", "localCount");
  IovCursor remote = GetIovList(info, 3, call, "remoteIov", "remoteCount");
  iovec localIov[kIovChunk];
  iovec remoteIov[kIovChunk];
  uint64_t done = 0;
  while (!local.AtEnd() && !remote.AtEnd()) {
    size_t nl = local.Fill(localIov, kIovChunk);
    size_t nr = remote.Fill(remoteIov, kIovChunk);
    if (nl == 0 || nr == 0) break;  // only empty entries remain on one side
    ssize_t n = Transfer(write, pid, localIov, nl, remoteIov, nr);
    if (n > 0) {
      done += static_cast<uint64_t>(n);
      local.Advance(static_cast<uint64_t>(n));
      remote.Advance(static_cast<uint64_t>(n));
      continue;
    }
    int err = n < 0 ? errno : EFAULT;
    if (err == EINTR) continue;
    ThrowTransferError(env, err, write, call, pid,
                       "at remote entry " + std::to_string(remote.index) + " (" +
                           Hex(static_cast<uint64_t>(remote.pairs[2 * remote.index]) + remote.offset) + ")",
                       done);
  }
  return Napi::Number::New(env, static_cast<double>(done));
}

Napi::Value CmaRead(const Napi::CallbackInfo& info) { return Copy(info, false); }
Napi::Value CmaWrite(const Napi::CallbackInfo& info) { return Copy(info, true); }
Napi::Value CmaReadv(const Napi::CallbackInfo& info) { return CopyVector(info, false); }
Napi::Value CmaWritev(const Napi::CallbackInfo& info) { return CopyVector(info, true); }

Napi::Value CmaProbe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  pid_t pid = GetPid(info, "cmaProbe");
  uint64_t remote = GetAddress(info, 1, "cmaProbe", "remoteAddr");
  uint8_t byte;
  iovec l{&byte, 1};
  iovec r{reinterpret_cast<void*>(static_cast<uintptr_t>(remote)), 1};
  ssize_t n;
  int err;
  do {
    n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    err = n == 1 ? 0 : n < 0 ? errno : EFAULT;
  } while (err == EINTR);
  Napi::Object result = Napi::Object::New(env);
  result.Set("ok", Napi::Boolean::New(env, err == 0));
  result.Set("errno", Napi::String::New(env, err == 0 ? "" : ErrnoName(err)));
  return result;
}

Napi::Value AddressOf(const Napi::CallbackInfo& info) {
  Bytes bytes = GetBytes(info, 0, "addressOf", "view");
  return Napi::Number::New(info.Env(),
                           static_cast<double>(reinterpret_cast<uintptr_t>(bytes.data)));
}

}  // namespace

void RegisterCma(Napi::Env env, Napi::Object exports) {
  exports.Set("addressOf", Napi::Function::New(env, AddressOf, "addressOf"));
  exports.Set("cmaRead", Napi::Function::New(env, CmaRead, "cmaRead"));
  exports.Set("cmaWrite", Napi::Function::New(env, CmaWrite, "cmaWrite"));
  exports.Set("cmaReadv", Napi::Function::New(env, CmaReadv, "cmaReadv"));
  exports.Set("cmaWritev", Napi::Function::New(env, CmaWritev, "cmaWritev"));
  exports.Set("cmaProbe", Napi::Function::New(env, CmaProbe, "cmaProbe"));
}

}  // namespace tsmpi
