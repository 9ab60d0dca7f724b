// A rank's life tied to the process that started it:
//
//   endWithParent(parentPid) -> boolean: from now on the kernel sends this process SIGKILL when
//                               its parent ends (prctl PR_SET_PDEATHSIG); if the parent is
//                               already gone (getppid() is no longer parentPid), the process
//                               ends at once. Returns true once armed.
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

}  // namespace

void RegisterLifetime(Napi::Env env, Napi::Object exports) {
  exports.Set("endWithParent", Napi::Function::New(env, EndWithParent, "endWithParent"));
}

}  // namespace tsmpi
