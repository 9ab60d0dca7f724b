// futexWaitAsync(cells, index, expected, timeoutMs) -> Promise<'ok' | 'not-equal' | 'timed-out'>
// futexWaiterThreads() -> number of native waiter threads alive (a diagnostic)
//
// The wait runs on a WaiterPool thread; its end is carried to the event loop by a thread-safe
// function, whose callback settles the promise. Nothing polls. While any wait is pending the
// thread-safe function is referenced, so the event loop stays alive (a pending receive keeps the
// process running); with none pending it is unreferenced and idle waiter threads do not hold
// the process.
//
// Teardown of the environment (process end, Worker termination) runs AsyncWaiter::Cleanup: it
// stops the pool before Node closes the thread-safe function, because the cleanup hook was added
// after the function was created and Node runs cleanup hooks last-added first.
#include <errno.h>

#include <climits>
#include <system_error>

#include "addon_data.h"
#include "args.h"
#include "errors.h"
#include "exports.h"
#include "waiter_pool.h"

namespace tsmpi {

namespace {

// One pending futexWaitAsync. Created and destroyed on the JavaScript thread; the pool thread
// touches only the Job part.
struct AsyncWait : WaiterPool::Job {
  explicit AsyncWait(Napi::Env env) : deferred(env) {}
  Napi::Promise::Deferred deferred;
  // The Int32Array, so that its SharedArrayBuffer (and the mapping the kernel sleeps on) cannot
  // be collected while the wait is pending.
  Napi::ObjectReference cells;
};

void Settle(Napi::Env env, Napi::Function, AsyncWaiter* waiter, AsyncWait* wait);

}  // namespace

class AsyncWaiter {
 public:
  explicit AsyncWaiter(Napi::Env env)
      : tsfn_(Tsfn::New(env, "tsmpi:futexWaitAsync", 0, 1, this)), pool_(Done, this) {
    tsfn_.Unref(env);  // referenced only while a wait is pending
  }

  Napi::Value Wait(const Napi::CallbackInfo& info);
  void Settled(Napi::Env env, AsyncWait* wait);
  size_t ThreadCount() { return pool_.ThreadCount(); }
  static void Cleanup(void* self);

 private:
  using Tsfn = Napi::TypedThreadSafeFunction<AsyncWaiter, AsyncWait, Settle>;

  static void Done(WaiterPool::Job* job, void* self) {
    // The function is still open: Node closes it only after Cleanup has joined every thread.
    static_cast<AsyncWaiter*>(self)->tsfn_.NonBlockingCall(static_cast<AsyncWait*>(job));
  }

  Tsfn tsfn_;
  WaiterPool pool_;
  size_t pending_ = 0;  // JavaScript thread only
};

namespace {

void Settle(Napi::Env env, Napi::Function, AsyncWaiter* waiter, AsyncWait* wait) {
  if (env == nullptr) {
    // Node is closing the function with this result still queued: the environment is going
    // away, and so is the promise. Its references die with the environment.
    wait->cells.SuppressDestruct();
    delete wait;
    return;
  }
  waiter->Settled(env, wait);
}

}  // namespace

Napi::Value AsyncWaiter::Wait(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t* cell = GetSharedCell(info, 0, "futexWaitAsync");
  int32_t expected = ToInt32(GetNumber(info, 2, "futexWaitAsync", "expected"));
  int64_t deadline = GetDeadline(info, 3, "futexWaitAsync");

  // Answers known now need no thread: the kernel would give the same at once.
  bool differs = __atomic_load_n(cell, __ATOMIC_SEQ_CST) != expected;
  if (differs || (deadline >= 0 && deadline <= MonotonicNowNs())) {
    Napi::Promise::Deferred settled = Napi::Promise::Deferred::New(env);
    settled.Resolve(
        FutexResultString(env, differs ? FutexResult::kNotEqual : FutexResult::kTimedOut));
    return settled.Promise();
  }

  auto* wait = new AsyncWait(env);
  wait->cell = cell;
  wait->expected = expected;
  wait->deadlineNs = deadline;
  wait->outcome = {FutexResult::kOk, 0};
  wait->cells = Napi::Persistent(info[0].As<Napi::Object>());
  Napi::Promise promise = wait->deferred.Promise();
  bool queued;
  try {
    queued = pool_.Submit(wait);
  } catch (const std::system_error& e) {
    delete wait;
    ThrowSystemError(env, e.code().value(), "pthread_create",
                     std::string("futexWaitAsync: cannot start a waiter thread: ") + e.what());
  }
  if (!queued) {
    delete wait;
    ThrowSystemError(env, ECANCELED, "futex",
                     "futexWaitAsync: the environment is shutting down; no wait can start");
  }
  if (pending_++ == 0) tsfn_.Ref(env);
  return promise;
}

void AsyncWaiter::Settled(Napi::Env env, AsyncWait* wait) {
  if (--pending_ == 0) tsfn_.Unref(env);
  if (wait->outcome.result != FutexResult::kError) {
    wait->deferred.Resolve(FutexResultString(env, wait->outcome.result));
  } else {
    int err = wait->outcome.error;
    Napi::Error error = Napi::Error::New(env, "futexWaitAsync: FUTEX_WAIT failed: " + ErrnoText(err));
    error.Set("code", Napi::String::New(env, ErrnoName(err)));
    error.Set("errno", Napi::Number::New(env, -err));
    error.Set("syscall", Napi::String::New(env, "futex"));
    wait->deferred.Reject(error.Value());
  }
  delete wait;
}

void AsyncWaiter::Cleanup(void* self) {
  auto* waiter = static_cast<AsyncWaiter*>(self);
  // Results already handed to the thread-safe function are freed when Node closes it (Settle
  // with a null env); the rest come back here.
  for (WaiterPool::Job* job : waiter->pool_.Stop()) delete static_cast<AsyncWait*>(job);
  delete waiter;
}

namespace {

Napi::Value FutexWaitAsync(const Napi::CallbackInfo& info) {
  return GetAddonData(info.Env()).asyncWaiter->Wait(info);
}

Napi::Value FutexWaiterThreads(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(),
                           static_cast<double>(GetAddonData(info.Env()).asyncWaiter->ThreadCount()));
}

}  // namespace

void RegisterFutexAsync(Napi::Env env, Napi::Object exports) {
  auto* waiter = new AsyncWaiter(env);
  // Added after the thread-safe function exists, so it runs before Node closes that function.
  if (napi_add_env_cleanup_hook(env, AsyncWaiter::Cleanup, waiter) != napi_ok) {
    NAPI_THROW_VOID(Napi::Error::New(env, "tsmpi: cannot register the futex waiter cleanup hook"));
  }
  GetAddonData(env).asyncWaiter = waiter;
  exports.Set("futexWaitAsync", Napi::Function::New(env, FutexWaitAsync, "futexWaitAsync"));
  exports.Set("futexWaiterThreads", Napi::Function::New(env, FutexWaiterThreads, "futexWaiterThreads"));
}

}  // namespace tsmpi
