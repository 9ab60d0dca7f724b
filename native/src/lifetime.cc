// A rank's life tied to the process that started it:
//
//   endWithParent(parentPid) -> boolean: from now on the kernel sends this process SIGKILL when
//                               its parent ends (prctl PR_SET_PDEATHSIG); if the parent is
//                               already gone (getppid() is no longer parentPid), the process
//                               ends at once. Returns true once armed.
//   onMainThread() -> boolean:   whether the calling JavaScript runs on the process's main
//                               thread (its event loop is libuv's default loop, which Node
//                               gives the main thread only; a worker_threads Worker has its own).
//
// Why onMainThread is here: worker_threads' isMainThread says the same, but loading
// node:worker_threads takes Node's worker and stream modules with it, 2-9 ms of every rank's
// start, and MPI.Init asks only this.
//
// Why native and SIGKILL: a rank blocked in a synchronous MPI call sleeps in a futex on the
// JavaScript thread, so neither a JavaScript handler nor an EOF on the PMI socket reaches it.
// When tsmpiexec (or hydra's proxy, or an agent on a remote host) is killed outright, its ranks
// slept on for good. The rank's segments are unlinked once its peers attached, so nothing of it
// is left in /dev/shm; the job's later segments are swept by the next launcher of the job or
// by tsmpiexec's own sweep of names whose owners are gone.
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <uv.h>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {
namespace {

Napi::Value EndWithParent(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t parent = GetInteger(info, 0, "endWithParent", "parentPid", 1, 4194304);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ThrowSystemError(env, errno, "prctl", "cannot set the parent-death signal");
  // The parent may have ended between our start and the prctl: the kernel would not tell us.
  if (static_cast<int64_t>(getppid()) != parent) raise(SIGKILL);
  return Napi::Boolean::New(env, true);
}

Napi::Value OnMainThread(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) {
    ThrowSystemError(env, 0, "napi_get_uv_event_loop", "cannot find this thread's event loop");
  }
  return Napi::Boolean::New(env, loop == uv_default_loop());
}

}  // namespace

void RegisterLifetime(Napi::Env env, Napi::Object exports) {
  exports.Set("endWithParent", Napi::Function::New(env, EndWithParent, "endWithParent"));
  exports.Set("onMainThread", Napi::Function::New(env, OnMainThread, "onMainThread"));
}

}  // namespace tsmpi
