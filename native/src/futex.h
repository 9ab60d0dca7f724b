// Futex wait and wake on a 32-bit cell, shared between processes: the operations are not
// FUTEX_PRIVATE_FLAG, so the kernel keys a wait by the page backing the cell and a process that
// maps the same segment at another address still meets it.
#ifndef TSMPI_FUTEX_H_
#define TSMPI_FUTEX_H_

#include <napi.h>

#include <cstdint>

namespace tsmpi {

enum class FutexResult {
  kOk,        // woken (or spuriously returned: callers re-check the cell, as with any futex)
  kNotEqual,  // the cell did not hold the expected value when the wait began
  kTimedOut,  // the deadline passed
  kError,     // a failure other than these; the errno is in FutexOutcome::error
};

struct FutexOutcome {
  FutexResult result;
  int error;
};

// Sleeps while *cell == expected, until woken or until deadlineNs (absolute CLOCK_MONOTONIC
// nanoseconds; -1 for none). A signal does not end the wait early: the absolute deadline makes
// retrying after EINTR wait only for the time that remains.
FutexOutcome FutexWaitUntil(int32_t* cell, int32_t expected, int64_t deadlineNs);

// Wakes up to count waiters on cell; returns how many were woken, or -errno.
int FutexWake(int32_t* cell, int count);

// 'ok', 'not-equal' or 'timed-out' (result must not be kError), from the strings made once.
Napi::Value FutexResultString(Napi::Env env, FutexResult result);

}  // namespace tsmpi

#endif  // TSMPI_FUTEX_H_
