// Loading libucp: see ucx_api.h.
#if TSMPI_HAVE_UCX

#include "ucx_api.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>

#include <mutex>

#include "errors.h"

#ifndef TSMPI_UCX_LIBDIR
#define TSMPI_UCX_LIBDIR ""
#endif

namespace tsmpi {
namespace ucx {

Api api;

namespace {

std::once_flag loadOnce;
bool loaded = false;
std::string loadError;
std::string loadedPath;

// The oldest UCX whose UCP has every function used here with the semantics relied on
// (ucp_am_recv_data_nbx, UCP_AM_RECV_ATTR_FLAG_RNDV, ucp_ep_close_nbx, ucp_atomic_op_nbx).
constexpr unsigned kMinMajor = 1;
constexpr unsigned kMinMinor = 10;

// libucs's constructor installs handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE that print a
// backtrace and freeze or end the process (UCX_ERROR_SIGNALS). Node relies on its own: V8 turns
// a WebAssembly out-of-bounds access into a SIGSEGV that its trap handler makes a RangeError.
// So unless the user asked for UCX's handlers by setting UCX_ERROR_SIGNALS, the process's
// handlers are put back as they were before the load.
class SignalGuard {
 public:
  SignalGuard() : keep_(getenv("UCX_ERROR_SIGNALS") != nullptr) {
    if (keep_) return;
    for (int s = 1; s < kSignals; s++) saved_[s] = sigaction(s, nullptr, &before_[s]) == 0;
  }
  ~SignalGuard() {
    if (keep_) return;
    for (int s = 1; s < kSignals; s++) {
      if (!saved_[s] || s == SIGKILL || s == SIGSTOP) continue;
      struct sigaction now;
      if (sigaction(s, nullptr, &now) != 0) continue;
      if (now.sa_handler != before_[s].sa_handler || now.sa_flags != before_[s].sa_flags) {
        sigaction(s, &before_[s], nullptr);
      }
    }
  }

 private:
  static constexpr int kSignals = 32;  // the classic signals; UCX installs none of the real-time ones
  const bool keep_;
  bool saved_[kSignals] = {};
  struct sigaction before_[kSignals];
};

// UCX's memory hooks (libucm) patch the code of mmap, munmap, brk, sbrk, madvise, ... in the
// running libc (the "bistro" mode) as libucs loads, to keep its registration caches current. In
// a Node process that is unsafe: V8's helper threads call those functions all the time, and
// patching live code under them is a known UCX race; here it truncated the malloc heap under
// live objects (a crash in V8's GC, about one run in twenty of the two-host message test). So
// unless the user set UCX_MEM_EVENTS, the load runs with UCX_MEM_EVENTS=no, the only switch
// libucs reads at that point (its constructor parses the environment and installs the hooks
// before dlopen returns). The variable is removed again right after, so the environment the
// program and its children see is unchanged; the window is one dlopen, once per process. UCX
// then registers memory per transfer where a transport needs registration (InfiniBand) instead
// of caching registrations; TCP needs none.
class MemoryHooksOff {
 public:
  MemoryHooksOff() : set_(getenv("UCX_MEM_EVENTS") == nullptr) {
    if (set_) setenv("UCX_MEM_EVENTS", "no", 0);
  }
  ~MemoryHooksOff() {
    if (set_) unsetenv("UCX_MEM_EVENTS");
  }

 private:
  const bool set_;
};

template <typename F>
bool Resolve(void* handle, F& slot, const char* name, std::string& missing) {
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (slot == nullptr && missing.empty()) missing = name;
  return slot != nullptr;
}

std::string ResolveAll(void* h) {
  std::string missing;
#define R(field, symbol) Resolve(h, api.field, #symbol, missing)
  R(get_version, ucp_get_version);
  R(get_version_string, ucp_get_version_string);
  R(config_read, ucp_config_read);
  R(config_release, ucp_config_release);
  R(init_version, ucp_init_version);
  R(cleanup, ucp_cleanup);
  R(worker_create, ucp_worker_create);
  R(worker_destroy, ucp_worker_destroy);
  R(worker_query, ucp_worker_query);
  R(worker_get_address, ucp_worker_get_address);
  R(worker_release_address, ucp_worker_release_address);
  R(worker_progress, ucp_worker_progress);
  R(worker_get_efd, ucp_worker_get_efd);
  R(worker_arm, ucp_worker_arm);
  R(worker_signal, ucp_worker_signal);
  R(worker_flush_nbx, ucp_worker_flush_nbx);
  R(worker_fence, ucp_worker_fence);
  R(worker_set_am_recv_handler, ucp_worker_set_am_recv_handler);
  R(ep_create, ucp_ep_create);
  R(ep_close_nbx, ucp_ep_close_nbx);
  R(ep_flush_nbx, ucp_ep_flush_nbx);
  R(am_send_nbx, ucp_am_send_nbx);
  R(am_recv_data_nbx, ucp_am_recv_data_nbx);
  R(am_data_release, ucp_am_data_release);
  R(request_free, ucp_request_free);
  R(request_check_status, ucp_request_check_status);
  R(mem_map, ucp_mem_map);
  R(mem_unmap, ucp_mem_unmap);
  R(rkey_pack, ucp_rkey_pack);
  R(rkey_buffer_release, ucp_rkey_buffer_release);
  R(ep_rkey_unpack, ucp_ep_rkey_unpack);
  R(rkey_destroy, ucp_rkey_destroy);
  R(put_nbx, ucp_put_nbx);
  R(get_nbx, ucp_get_nbx);
  R(atomic_op_nbx, ucp_atomic_op_nbx);
  R(status_string, ucs_status_string);  // libucs, found through libucp's dependencies
#undef R
  return missing;
}

void DoLoad(const std::string& requested) {
  std::string path = requested;
  if (path.empty()) {
    path = std::string(TSMPI_UCX_LIBDIR).empty() ? "libucp.so.0" : TSMPI_UCX_LIBDIR "/libucp.so.0";
  }
  void* handle;
  {
    SignalGuard guard;
    MemoryHooksOff hooksOff;
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    // The directory the build found UCX in may be gone (a prebuilt addon elsewhere): fall back
    // to the loader's own search.
    if (handle == nullptr && requested.empty() && path != "libucp.so.0") {
      path = "libucp.so.0";
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
  }
  if (handle == nullptr) {
    const char* why = dlerror();
    loadError = "UCX's library " + path + " cannot be loaded (" + (why ? why : "unknown reason") +
                "): install libucx0 (Debian/Ubuntu: apt-get install libucx0; Fedora/RHEL: dnf install ucx)" +
                (requested.empty() ? "" : ", or name an existing libucp.so");
    return;
  }
  std::string missing = ResolveAll(handle);
  if (!missing.empty()) {
    loadError = path + " lacks " + missing + ": tsmpi needs UCX 1.10 or newer";
    return;
  }
  unsigned major = 0, minor = 0, release = 0;
  api.get_version(&major, &minor, &release);
  if (major < kMinMajor || (major == kMinMajor && minor < kMinMinor)) {
    loadError = path + " is UCX " + std::to_string(major) + "." + std::to_string(minor) + "." +
                std::to_string(release) + "; tsmpi needs UCX 1.10 or newer";
    return;
  }
  loadedPath = path;
  loaded = true;
}

}  // namespace

bool Loaded() { return loaded; }

std::string Load(const std::string& path) {
  std::call_once(loadOnce, [&] { DoLoad(path); });
  return loaded ? std::string() : loadError;
}

const std::string& LoadedPath() { return loadedPath; }

std::string VersionString() { return loaded ? api.get_version_string() : std::string(); }

void RequireLoaded(Napi::Env env, const char* call) {
  if (loaded) return;
  std::string why = Load("");
  if (!why.empty()) ThrowCodedError(env, "ENOSYS", std::string(call) + ": " + why);
}

const char* StatusName(ucs_status_t status) {
  switch (status) {
#define NAME(x) \
  case x:       \
    return #x;
    NAME(UCS_OK) NAME(UCS_INPROGRESS) NAME(UCS_ERR_NO_MESSAGE) NAME(UCS_ERR_NO_RESOURCE)
    NAME(UCS_ERR_IO_ERROR) NAME(UCS_ERR_NO_MEMORY) NAME(UCS_ERR_INVALID_PARAM) NAME(UCS_ERR_UNREACHABLE)
    NAME(UCS_ERR_INVALID_ADDR) NAME(UCS_ERR_NOT_IMPLEMENTED) NAME(UCS_ERR_MESSAGE_TRUNCATED)
    NAME(UCS_ERR_NO_PROGRESS) NAME(UCS_ERR_BUFFER_TOO_SMALL) NAME(UCS_ERR_NO_ELEM)
    NAME(UCS_ERR_SOME_CONNECTS_FAILED) NAME(UCS_ERR_NO_DEVICE) NAME(UCS_ERR_BUSY) NAME(UCS_ERR_CANCELED)
    NAME(UCS_ERR_SHMEM_SEGMENT) NAME(UCS_ERR_ALREADY_EXISTS) NAME(UCS_ERR_OUT_OF_RANGE)
    NAME(UCS_ERR_TIMED_OUT) NAME(UCS_ERR_EXCEEDS_LIMIT) NAME(UCS_ERR_UNSUPPORTED) NAME(UCS_ERR_REJECTED)
    NAME(UCS_ERR_NOT_CONNECTED) NAME(UCS_ERR_CONNECTION_RESET) NAME(UCS_ERR_ENDPOINT_TIMEOUT)
#undef NAME
    default:
      break;
  }
  // Link (-40..-59) and endpoint (-60..-89) failures have ranges, not names.
  static thread_local char other[32];
  snprintf(other, sizeof other, "UCS_ERR_%d", static_cast<int>(status));
  return other;
}

void ThrowStatus(Napi::Env env, ucs_status_t status, const std::string& what) {
  Napi::Error e = Napi::Error::New(env, what + ": " + (loaded ? api.status_string(status) : StatusName(status)));
  e.Set("code", Napi::String::New(env, StatusName(status)));
  e.Set("ucsStatus", Napi::Number::New(env, static_cast<double>(status)));
  throw e;
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
