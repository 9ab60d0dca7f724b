// Errors thrown to JavaScript. Every error carries `code`: the errno name for a failed system call
// ('ENOSPC', 'EPERM', ...) and 'EINVAL' for a bad argument, so callers branch on the code and
// never on message text. System errors also carry `syscall` and `errno` (negative, as Node's own
// fs errors do). Messages name the call, the argument and what was expected.
#ifndef TSMPI_ERRORS_H_
#define TSMPI_ERRORS_H_

#include <napi.h>

#include <string>

namespace tsmpi {

// The symbolic name of an errno value, e.g. "ENOENT"; "E<number>" for one not in the table.
std::string ErrnoName(int err);

// strerror(err) without the thread-safety trap of strerror().
std::string ErrnoText(int err);

// Throws Error{code: errno name, errno: -err, syscall} with the given message.
[[noreturn]] void ThrowSystemError(Napi::Env env, int err, const char* syscall,
                                   const std::string& message);

// Throws Error{code} where code is not an errno (getaddrinfo failures: 'ENOTFOUND', ...).
[[noreturn]] void ThrowCodedError(Napi::Env env, const char* code, const std::string& message);

// Throws TypeError{code: 'EINVAL'}: an argument of the wrong kind.
[[noreturn]] void ThrowTypeError(Napi::Env env, const std::string& message);

// Throws RangeError{code: 'EINVAL'}: an argument of the right kind but out of range.
[[noreturn]] void ThrowRangeError(Napi::Env env, const std::string& message);

}  // namespace tsmpi

#endif  // TSMPI_ERRORS_H_
