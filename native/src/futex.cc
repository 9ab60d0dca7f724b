// Synchronous futex calls for JavaScript:
//
//   futexWait(cells, index, expected, timeoutMs) -> 'ok' | 'not-equal' | 'timed-out'
//   futexWake(cells, index, count)               -> number of waiters woken
//   schedYield()                                 -> undefined: gives up the CPU to a runnable thread
//   schedBatch()                                 -> boolean: the calling thread now runs under
//                                                   SCHED_BATCH (false: it ran under another
//                                                   policy than SCHED_OTHER, left as it was)
//   membarrierRegister()                         -> boolean: this process takes part in fenceOthers
//   fenceOthers()                                -> undefined: a full barrier on every CPU that runs
//                                                   a registered process (membarrier(2))
//
// The cell is addressed as Atomics.wait/notify address it, in an Int32Array over a
// SharedArrayBuffer; unlike Atomics.wait this works on the main thread and across processes.
#include "futex.h"

#include <errno.h>
#include <sched.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cmath>

#include "addon_data.h"
#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

FutexOutcome FutexWaitUntil(int32_t* cell, int32_t expected, int64_t deadlineNs) {
  timespec deadline;
  timespec* timeout = nullptr;
  if (deadlineNs >= 0) {
    deadline.tv_sec = static_cast<time_t>(deadlineNs / 1000000000);
    deadline.tv_nsec = static_cast<long>(deadlineNs % 1000000000);
    timeout = &deadline;
  }
  for (;;) {
    // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, where FUTEX_WAIT takes a
    // relative one that would need recomputing after every interruption.
    long rc = syscall(SYS_futex, cell, FUTEX_WAIT_BITSET, expected, timeout, nullptr,
                      FUTEX_BITSET_MATCH_ANY);
    if (rc == 0) return {FutexResult::kOk, 0};
    int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN) return {FutexResult::kNotEqual, 0};
    if (err == ETIMEDOUT) return {FutexResult::kTimedOut, 0};
    return {FutexResult::kError, err};
  }
}

int FutexWake(int32_t* cell, int count) {
  // The kernel wakes one waiter even when asked for none; Atomics.notify(…, 0) wakes none.
  if (count <= 0) return 0;
  long rc = syscall(SYS_futex, cell, FUTEX_WAKE, count, nullptr, nullptr, 0);
  return rc >= 0 ? static_cast<int>(rc) : -errno;
}

Napi::Value FutexResultString(Napi::Env env, FutexResult result) {
  return GetAddonData(env).waitResults.Get(static_cast<uint32_t>(result));
}

namespace {

Napi::Value FutexWait(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t* cell = GetSharedCell(info, 0, "futexWait");
  int32_t expected = ToInt32(GetNumber(info, 2, "futexWait", "expected"));
  int64_t deadline = GetDeadline(info, 3, "futexWait");
  FutexOutcome outcome = FutexWaitUntil(cell, expected, deadline);
  if (outcome.result != FutexResult::kError) return FutexResultString(env, outcome.result);
  ThrowSystemError(env, outcome.error, "futex",
                   "futexWait: FUTEX_WAIT on cell " + FormatNumber(info[1].As<Napi::Number>()) +
                       " failed: " + ErrnoText(outcome.error));
}

Napi::Value FutexWakeExport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t* cell = GetSharedCell(info, 0, "futexWake");
  double count = GetNumber(info, 2, "futexWake", "count");
  int n;
  if (std::isinf(count) && count > 0) {  // "wake everyone", as Atomics.notify takes it
    n = INT_MAX;
  } else {
    n = static_cast<int>(GetInteger(info, 2, "futexWake", "count", 0, INT_MAX));
  }
  int woken = FutexWake(cell, n);
  if (woken < 0) {
    ThrowSystemError(env, -woken, "futex",
                     "futexWake: FUTEX_WAKE on cell " + FormatNumber(info[1].As<Napi::Number>()) +
                         " failed: " + ErrnoText(-woken));
  }
  return Napi::Number::New(env, woken);
}

Napi::Value SchedYield(const Napi::CallbackInfo& info) {
  sched_yield();
  return info.Env().Undefined();
}

// SCHED_BATCH is SCHED_OTHER without wake-up preemption: a thread woken from its futex waits for
// the running one to block, yield or use up its slice instead of taking its core at once. With
// more ranks than cores a rank woken at the end of a collective otherwise preempts a peer that is
// already inside its next call, which then waits a whole slice for data that is there. A thread
// under another policy (real-time, SCHED_IDLE) was put there by someone on purpose: left alone.
Napi::Value SchedBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int got = sched_getscheduler(0);
  const int policy = got & ~SCHED_RESET_ON_FORK;
  if (got < 0) ThrowSystemError(env, errno, "sched_getscheduler", "cannot read this thread's scheduling policy");
  if (policy != SCHED_OTHER) return Napi::Boolean::New(env, policy == SCHED_BATCH);
  struct sched_param param = {};
  param.sched_priority = 0;
  if (sched_setscheduler(0, SCHED_BATCH, &param) != 0) {
    ThrowSystemError(env, errno, "sched_setscheduler", "cannot move this thread to SCHED_BATCH");
  }
  return Napi::Boolean::New(env, true);
}

// The asymmetric fence of the doorbell protocol (common/doorbell.ts): peers that publish with
// plain stores pay nothing per packet; a rank about to sleep makes every registered process's
// running CPU execute a full barrier, so their earlier stores are visible to its last check.
Napi::Value MembarrierRegister(const Napi::CallbackInfo& info) {
  long supported = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  bool ok = supported > 0 && (supported & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0 &&
            (supported & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0 &&
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
  return Napi::Boolean::New(info.Env(), ok);
}

Napi::Value FenceOthers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0) {
    int err = errno;
    ThrowSystemError(env, err, "membarrier", "fenceOthers: MEMBARRIER_CMD_GLOBAL_EXPEDITED failed: " + ErrnoText(err));
  }
  return env.Undefined();
}

}  // namespace

void RegisterFutex(Napi::Env env, Napi::Object exports) {
  Napi::Array results = Napi::Array::New(env, 3);
  results.Set(static_cast<uint32_t>(FutexResult::kOk), "ok");
  results.Set(static_cast<uint32_t>(FutexResult::kNotEqual), "not-equal");
  results.Set(static_cast<uint32_t>(FutexResult::kTimedOut), "timed-out");
  GetAddonData(env).waitResults = Napi::Persistent(results.As<Napi::Object>());
  exports.Set("futexWait", Napi::Function::New(env, FutexWait, "futexWait"));
  exports.Set("futexWake", Napi::Function::New(env, FutexWakeExport, "futexWake"));
  exports.Set("schedYield", Napi::Function::New(env, SchedYield, "schedYield"));
  exports.Set("schedBatch", Napi::Function::New(env, SchedBatch, "schedBatch"));
  exports.Set("membarrierRegister", Napi::Function::New(env, MembarrierRegister, "membarrierRegister"));
  exports.Set("fenceOthers", Napi::Function::New(env, FenceOthers, "fenceOthers"));
}

}  // namespace tsmpi
