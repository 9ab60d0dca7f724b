// Sockets for the PMI bootstrap. MPI.Init() is synchronous, so the PMI client talks over a
// blocking descriptor with fs.readSync/fs.writeSync; these calls make that descriptor.
//
//   socketpair()                         -> [fd, fd]  AF_UNIX stream pair (launcher side + child)
//   connectTcp(host, port, timeoutMs)    -> fd        PMI_PORT=host:port
//   connectUnix(path, timeoutMs)         -> fd        a Unix socket path
//   setBlocking(fd, blocking)
//   listenTcp()                          -> [fd, port] a port of MPI.Open_port (any address)
//   acceptTcp(fd, timeoutMs)             -> fd | -1   its next connection, or -1 on timeout
//   waitReadable(fd, timeoutMs)          -> boolean   whether fd has data (or end of file)
//
// Every descriptor is close-on-exec: child_process.spawn dup2()s the one it passes in the child's
// stdio, which clears the flag on the copy, and no other program should inherit them.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

namespace {

// Milliseconds left until deadlineNs for poll(), rounded up so a wait never ends early; -1 for
// no deadline.
int PollTimeout(int64_t deadlineNs) {
  if (deadlineNs < 0) return -1;
  int64_t left = deadlineNs - MonotonicNowNs();
  if (left <= 0) return 0;
  int64_t ms = (left + 999999) / 1000000;
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

std::string FormatAddress(const sockaddr* addr) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (addr->sa_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (addr->sa_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return text;
}

// 0 on success, else an errno.
int SetNonBlocking(int fd, bool nonBlocking) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  int wanted = nonBlocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (wanted != flags && fcntl(fd, F_SETFL, wanted) < 0) return errno;
  return 0;
}

// A non-blocking connect finished by poll(), so the deadline holds whatever the network does.
// 0 on success, else an errno (ETIMEDOUT when the deadline passed first).
int ConnectByPoll(int fd, const sockaddr* addr, socklen_t length, int64_t deadlineNs) {
  if (connect(fd, addr, length) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd pfd{fd, POLLOUT, 0};
  for (;;) {
    int ready = poll(&pfd, 1, PollTimeout(deadlineNs));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return errno;
    if (ready == 0) {
      if (deadlineNs >= 0 && MonotonicNowNs() < deadlineNs) continue;  // poll rounded down
      return ETIMEDOUT;
    }
    int err = 0;
    socklen_t size = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &size) < 0) return errno;
    return err;
  }
}

Napi::Value SocketPair(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    int err = errno;
    ThrowSystemError(env, err, "socketpair",
                     "socketpair: cannot create an AF_UNIX stream pair: " + ErrnoText(err));
  }
  Napi::Array pair = Napi::Array::New(env, 2);
  pair.Set(uint32_t{0}, Napi::Number::New(env, fds[0]));
  pair.Set(uint32_t{1}, Napi::Number::New(env, fds[1]));
  return pair;
}

Napi::Value ConnectTcp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string host = GetString(info, 0, "connectTcp", "host");
  int port = static_cast<int>(GetInteger(info, 1, "connectTcp", "port", 1, 65535));
  int64_t deadline = GetDeadline(info, 2, "connectTcp");
  std::string target = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                       std::to_string(port);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int gai = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (gai != 0) {
    int sysErr = errno;
    std::string message = "connectTcp: cannot resolve host '" + host + "' (connecting to " +
                          target + "): " + (gai == EAI_SYSTEM ? ErrnoText(sysErr) : gai_strerror(gai));
    if (gai == EAI_SYSTEM) ThrowSystemError(env, sysErr, "getaddrinfo", message);
    // The codes Node's dns module uses for the same failures.
    const char* code = (gai == EAI_NONAME || gai == EAI_NODATA) ? "ENOTFOUND"
                       : gai == EAI_AGAIN                      ? "EAI_AGAIN"
                                                               : "EAI_FAIL";
    ThrowCodedError(env, code, message);
  }

  int lastErr = EADDRNOTAVAIL;
  std::string tried;
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    int err = fd < 0 ? errno : ConnectByPoll(fd, ai->ai_addr, ai->ai_addrlen, deadline);
    if (err == 0) err = SetNonBlocking(fd, false);
    if (err == 0) {
      // PMI is small request/response lines: Nagle's algorithm would hold each one back.
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      freeaddrinfo(found);
      return Napi::Number::New(env, fd);
    }
    if (fd >= 0) close(fd);
    lastErr = err;
    tried += (tried.empty() ? "" : ", ") + FormatAddress(ai->ai_addr) + " " + ErrnoName(err);
    if (err == ETIMEDOUT) break;  // the deadline is shared by all addresses
  }
  freeaddrinfo(found);
  ThrowSystemError(env, lastErr, "connect",
                   "connectTcp: cannot connect to " + target + ": " + ErrnoText(lastErr) +
                       " (tried " + tried + ")");
}

Napi::Value ConnectUnix(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = GetString(info, 0, "connectUnix", "path");
  int64_t deadline = GetDeadline(info, 1, "connectUnix");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path || path.find('\0') != std::string::npos) {
    ThrowRangeError(env, "connectUnix: path '" + path + "' must be 1 to " +
                             std::to_string(sizeof addr.sun_path - 1) +
                             " bytes with no NUL (the size of sun_path)");
  }
  path.copy(addr.sun_path, path.size());

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    ThrowSystemError(env, err, "socket",
                     "connectUnix: cannot create a socket for '" + path + "': " + ErrnoText(err));
  }
  // A Unix connect waits only when the listener's backlog is full, and that wait cannot be
  // polled; SO_SNDTIMEO bounds it instead (it expires as EAGAIN) and is cleared afterwards so
  // that later writes block normally.
  int err;
  for (;;) {
    timeval tv{0, 0};
    if (deadline >= 0) {
      int64_t left = deadline - MonotonicNowNs();
      if (left <= 0) left = 1000;  // a zero timeval would mean "forever"
      tv.tv_sec = static_cast<time_t>(left / 1000000000);
      tv.tv_usec = static_cast<suseconds_t>((left % 1000000000 + 999) / 1000);
    }
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    err = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
    if (err != EINTR) break;
  }
  if (err == EAGAIN && deadline >= 0) err = ETIMEDOUT;
  if (err == 0) {
    timeval none{0, 0};
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none) != 0) err = errno;
  }
  if (err != 0) {
    close(fd);
    ThrowSystemError(env, err, "connect",
                     "connectUnix: cannot connect to '" + path + "': " + ErrnoText(err));
  }
  return Napi::Number::New(env, fd);
}

Napi::Value SetBlocking(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = static_cast<int>(GetInteger(info, 0, "setBlocking", "fd", 0, INT_MAX));
  if (!info[1].IsBoolean()) {
    ThrowTypeError(env, "setBlocking: blocking must be a boolean, got " + DescribeValue(info[1]));
  }
  bool blocking = info[1].As<Napi::Boolean>().Value();
  int err = SetNonBlocking(fd, !blocking);
  if (err != 0) {
    ThrowSystemError(env, err, "fcntl",
                     "setBlocking: cannot make fd " + std::to_string(fd) +
                         (blocking ? " blocking: " : " non-blocking: ") + ErrnoText(err));
  }
  return env.Undefined();
}

// A listening TCP socket on every address of the host, on a port the kernel picks (IPv6 with
// IPv4 mapped when the host has IPv6, else IPv4).
Napi::Value ListenTcp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int err = 0;
  if (fd >= 0) {
    int zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) err = errno;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (err == 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) err = errno;
  }
  if (err == 0 && listen(fd, 64) != 0) err = errno;
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (err == 0 && getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) err = errno;
  if (err != 0) {
    if (fd >= 0) close(fd);
    ThrowSystemError(env, err, "listen", "listenTcp: cannot listen on a TCP port: " + ErrnoText(err));
  }
  int port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  Napi::Array result = Napi::Array::New(env, 2);
  result.Set(uint32_t{0}, Napi::Number::New(env, fd));
  result.Set(uint32_t{1}, Napi::Number::New(env, port));
  return result;
}

// 1 readable (or hung up), 0 timeout, else -errno.
int PollIn(int fd, int timeoutMs) {
  pollfd pfd{fd, POLLIN, 0};
  for (;;) {
    int ready = poll(&pfd, 1, timeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return -errno;
    return ready > 0 ? 1 : 0;
  }
}

Napi::Value AcceptTcp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = static_cast<int>(GetInteger(info, 0, "acceptTcp", "fd", 0, INT_MAX));
  int timeoutMs = static_cast<int>(GetInteger(info, 1, "acceptTcp", "timeoutMs", 0, INT_MAX));
  int ready = PollIn(fd, timeoutMs);
  if (ready == 0) return Napi::Number::New(env, -1);
  int conn = ready < 0 ? ready : accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (conn < 0) {
    int err = ready < 0 ? -ready : errno;
    if (err == EAGAIN || err == EINTR || err == ECONNABORTED) return Napi::Number::New(env, -1);
    ThrowSystemError(env, err, "accept", "acceptTcp: cannot accept on fd " + std::to_string(fd) + ": " + ErrnoText(err));
  }
  int one = 1;
  setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return Napi::Number::New(env, conn);
}

Napi::Value WaitReadable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = static_cast<int>(GetInteger(info, 0, "waitReadable", "fd", 0, INT_MAX));
  int timeoutMs = static_cast<int>(GetInteger(info, 1, "waitReadable", "timeoutMs", 0, INT_MAX));
  int ready = PollIn(fd, timeoutMs);
  if (ready < 0) {
    ThrowSystemError(env, -ready, "poll", "waitReadable: cannot poll fd " + std::to_string(fd) + ": " + ErrnoText(-ready));
  }
  return Napi::Boolean::New(env, ready > 0);
}

}  // namespace

void RegisterSocket(Napi::Env env, Napi::Object exports) {
  exports.Set("socketpair", Napi::Function::New(env, SocketPair, "socketpair"));
  exports.Set("connectTcp", Napi::Function::New(env, ConnectTcp, "connectTcp"));
  exports.Set("connectUnix", Napi::Function::New(env, ConnectUnix, "connectUnix"));
  exports.Set("setBlocking", Napi::Function::New(env, SetBlocking, "setBlocking"));
  exports.Set("listenTcp", Napi::Function::New(env, ListenTcp, "listenTcp"));
  exports.Set("acceptTcp", Napi::Function::New(env, AcceptTcp, "acceptTcp"));
  exports.Set("waitReadable", Napi::Function::New(env, WaitReadable, "waitReadable"));
}

}  // namespace tsmpi
