#include "errors.h"

#include <errno.h>
#include <string.h>

#include <type_traits>

namespace tsmpi {

namespace {

struct ErrnoEntry {
  int value;
  const char* name;
};

// A fixed table rather than glibc's strerrorname_np, so that musl builds name errors the same way.
// It covers what shm, futex, process_vm_*, socket and connect calls can return.
#define TSMPI_ERRNO(e) {e, #e}
constexpr ErrnoEntry kErrnoNames[] = {
    TSMPI_ERRNO(EPERM),        TSMPI_ERRNO(ENOENT),       TSMPI_ERRNO(ESRCH),
    TSMPI_ERRNO(EINTR),        TSMPI_ERRNO(EIO),          TSMPI_ERRNO(ENXIO),
    TSMPI_ERRNO(E2BIG),        TSMPI_ERRNO(EBADF),        TSMPI_ERRNO(ECHILD),
    TSMPI_ERRNO(EAGAIN),       TSMPI_ERRNO(ENOMEM),       TSMPI_ERRNO(EACCES),
    TSMPI_ERRNO(EFAULT),       TSMPI_ERRNO(EBUSY),        TSMPI_ERRNO(EEXIST),
    TSMPI_ERRNO(ENODEV),       TSMPI_ERRNO(ENOTDIR),      TSMPI_ERRNO(EISDIR),
    TSMPI_ERRNO(EINVAL),       TSMPI_ERRNO(ENFILE),       TSMPI_ERRNO(EMFILE),
    TSMPI_ERRNO(EFBIG),        TSMPI_ERRNO(ENOSPC),       TSMPI_ERRNO(EROFS),
    TSMPI_ERRNO(EPIPE),        TSMPI_ERRNO(ERANGE),       TSMPI_ERRNO(ENAMETOOLONG),
    TSMPI_ERRNO(ENOSYS),       TSMPI_ERRNO(ELOOP),        TSMPI_ERRNO(EOVERFLOW),
    TSMPI_ERRNO(ENOTSOCK),     TSMPI_ERRNO(EDESTADDRREQ), TSMPI_ERRNO(EMSGSIZE),
    TSMPI_ERRNO(EPROTOTYPE),   TSMPI_ERRNO(EPROTONOSUPPORT),
    TSMPI_ERRNO(EOPNOTSUPP),   TSMPI_ERRNO(EAFNOSUPPORT), TSMPI_ERRNO(EADDRINUSE),
    TSMPI_ERRNO(EADDRNOTAVAIL), TSMPI_ERRNO(ENETDOWN),    TSMPI_ERRNO(ENETUNREACH),
    TSMPI_ERRNO(ENETRESET),    TSMPI_ERRNO(ECONNABORTED), TSMPI_ERRNO(ECONNRESET),
    TSMPI_ERRNO(ENOBUFS),      TSMPI_ERRNO(EISCONN),      TSMPI_ERRNO(ENOTCONN),
    TSMPI_ERRNO(ETIMEDOUT),    TSMPI_ERRNO(ECONNREFUSED), TSMPI_ERRNO(EHOSTDOWN),
    TSMPI_ERRNO(EHOSTUNREACH), TSMPI_ERRNO(EALREADY),     TSMPI_ERRNO(EINPROGRESS),
    TSMPI_ERRNO(EDQUOT),       TSMPI_ERRNO(ETXTBSY),      TSMPI_ERRNO(EMLINK),
    TSMPI_ERRNO(ENOTEMPTY),    TSMPI_ERRNO(ECANCELED),
};
#undef TSMPI_ERRNO

[[noreturn]] void Throw(Napi::Error error, const char* code) {
  error.Set("code", Napi::String::New(error.Env(), code));
  throw error;
}

}  // namespace

std::string ErrnoName(int err) {
  for (const ErrnoEntry& entry : kErrnoNames) {
    if (entry.value == err) return entry.name;
  }
  return "E" + std::to_string(err);
}

std::string ErrnoText(int err) {
  char buf[128];
  // The GNU strerror_r returns its own pointer; the XSI one fills buf. Both are handled.
  auto text = strerror_r(err, buf, sizeof buf);
  if constexpr (std::is_same_v<decltype(text), char*>) {
    return text;
  } else {
    return text == 0 ? buf : "errno " + std::to_string(err);
  }
}

void ThrowSystemError(Napi::Env env, int err, const char* syscall, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("errno", Napi::Number::New(env, -err));
  error.Set("syscall", Napi::String::New(env, syscall));
  Throw(error, ErrnoName(err).c_str());
}

void ThrowCodedError(Napi::Env env, const char* code, const std::string& message) {
  Throw(Napi::Error::New(env, message), code);
}

void ThrowTypeError(Napi::Env env, const std::string& message) {
  Throw(Napi::TypeError::New(env, message), "EINVAL");
}

void ThrowRangeError(Napi::Env env, const std::string& message) {
  Throw(Napi::RangeError::New(env, message), "EINVAL");
}

}  // namespace tsmpi
