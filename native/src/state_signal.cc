// A signal that asks a rank what it is doing (tsmpiexec sends SIGUSR2 before it stops a job):
//
//   stateSignalInstall(signo, flag, flagIndex, onRequest)  installs the handler
//   stateSignalBell(cells, index) / stateSignalBell(null)  the doorbell the handler rings
//
// A JavaScript handler (process.on) cannot do this job: it runs only when the event loop turns,
// and a rank blocked in a synchronous MPI call sleeps in a futex on the JavaScript thread. So
// the handler is native and does only async-signal-safe things:
//   1. adds 1 to the flag cell (an Int32Array over a SharedArrayBuffer that JavaScript reads
//      where a blocked call wakes up: after each futex sleep, nothing on the message path);
//   2. rings the rank's own doorbell (adds 1 to the cell and FUTEX_WAKEs it), so a blocking
//      sleep on the JavaScript thread, or a waiter thread's, ends at once whichever thread the
//      kernel chose to run the handler on;
//   3. uv_async_send()s the event loop (async-signal-safe by libuv's contract), whose callback
//      calls onRequest: the answer when the rank is not inside a blocking call (it awaits, or is
//      idle). Nothing polls, and the handle is unreferenced, so it keeps no process alive.
// Installed with SA_RESTART, so other system calls of the process do not see EINTR.
//
// One process, one handler: installing from a second environment (a Worker) is refused.
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <string>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

namespace {

struct StateSignal {
  napi_env env = nullptr;
  uv_async_t async;
  Napi::FunctionReference onRequest;
  Napi::ObjectReference flagCells;  // keeps the flag's memory alive
  Napi::ObjectReference bellCells;  // keeps the doorbell's mapping alive while armed
  Napi::AsyncContext* context = nullptr;
  int signo = 0;
};

// Read by the handler; each is a plain pointer in a lock-free atomic.
std::atomic<int32_t*> gFlag{nullptr};
std::atomic<int32_t*> gBell{nullptr};
std::atomic<uv_async_t*> gAsync{nullptr};
StateSignal* gState = nullptr;  // JavaScript thread of the owning environment only

void Handler(int) {
  int saved = errno;
  if (int32_t* flag = gFlag.load()) __atomic_fetch_add(flag, 1, __ATOMIC_SEQ_CST);
  if (int32_t* bell = gBell.load()) {
    __atomic_fetch_add(bell, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, bell, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }
  if (uv_async_t* async = gAsync.load()) uv_async_send(async);
  errno = saved;
}

void OnAsync(uv_async_t* handle) {
  auto* state = static_cast<StateSignal*>(handle->data);
  Napi::Env env(state->env);
  Napi::HandleScope scope(env);
  try {
    state->onRequest.MakeCallback(env.Global(), {}, *state->context);
  } catch (const Napi::Error& e) {
    // The callback threw: let it surface as an uncaught exception, as a listener's would.
    napi_fatal_exception(state->env, e.Value());
  }
}

void Cleanup(void*) {
  StateSignal* state = gState;
  if (state == nullptr) return;
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_IGN;  // a late signal during teardown must not kill the exit path
  sigaction(state->signo, &dfl, nullptr);
  gAsync.store(nullptr);
  gBell.store(nullptr);
  gFlag.store(nullptr);
  gState = nullptr;
  delete state->context;
  state->context = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(&state->async), [](uv_handle_t* h) {
    delete static_cast<StateSignal*>(h->data);
  });
}

Napi::Value Install(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "stateSignalInstall";
  int signo = static_cast<int>(GetInteger(info, 0, call, "signo", 1, SIGRTMAX));
  int32_t* flag = GetSharedCell(info, 1, call);
  if (!info[3].IsFunction()) {
    ThrowTypeError(env, std::string(call) + ": onRequest must be a function, got " + DescribeValue(info[3]));
  }
  if (gState != nullptr && gState->env != static_cast<napi_env>(env)) {
    ThrowSystemError(env, EBUSY, "sigaction",
                     std::string(call) + ": another thread of this process already answers the signal");
  }
  if (gState == nullptr) {
    uv_loop_t* loop = nullptr;
    if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) {
      ThrowSystemError(env, EINVAL, "uv_async_init", std::string(call) + ": no event loop");
    }
    auto* state = new StateSignal();
    state->env = env;
    state->async.data = state;
    int rc = uv_async_init(loop, &state->async, OnAsync);
    if (rc != 0) {
      delete state;
      ThrowSystemError(env, -rc, "uv_async_init", std::string(call) + ": " + uv_strerror(rc));
    }
    uv_unref(reinterpret_cast<uv_handle_t*>(&state->async));
    state->context = new Napi::AsyncContext(env, "tsmpi:stateSignal");
    gState = state;
    napi_add_env_cleanup_hook(env, Cleanup, nullptr);
  }
  StateSignal* state = gState;
  state->onRequest = Napi::Persistent(info[3].As<Napi::Function>());
  state->flagCells = Napi::Persistent(info[1].As<Napi::Object>());
  gFlag.store(flag);
  gAsync.store(&state->async);
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = Handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(signo, &action, nullptr) != 0) {
    int err = errno;
    ThrowSystemError(env, err, "sigaction", std::string(call) + ": signal " + std::to_string(signo) +
                                                ": " + ErrnoText(err));
  }
  state->signo = signo;
  return env.Undefined();
}

Napi::Value Bell(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  StateSignal* state = gState;
  if (state == nullptr) ThrowSystemError(env, EINVAL, "stateSignalBell", "stateSignalBell: the handler is not installed");
  if (info[0].IsNull() || info[0].IsUndefined()) {
    // Unarm before letting the mapping go: the handler never touches a cell that may be unmapped.
    gBell.store(nullptr);
    state->bellCells.Reset();
    return env.Undefined();
  }
  int32_t* cell = GetSharedCell(info, 0, "stateSignalBell");
  state->bellCells = Napi::Persistent(info[0].As<Napi::Object>());
  gBell.store(cell);
  return env.Undefined();
}

}  // namespace

void RegisterStateSignal(Napi::Env env, Napi::Object exports) {
  exports.Set("stateSignalInstall", Napi::Function::New(env, Install, "stateSignalInstall"));
  exports.Set("stateSignalBell", Napi::Function::New(env, Bell, "stateSignalBell"));
}

}  // namespace tsmpi
