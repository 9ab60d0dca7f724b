// Sleeping until UCX has something: the worker's event fd (UCP_FEATURE_WAKEUP).
//
//   ucxArm(worker) -> true (armed: the fd will fire on the next event) | false (events pending: progress first)
//   ucxWait(worker, timeoutMs) -> 'ok' | 'timed-out' | 'busy'
//   ucxBellAttach(worker, cells, index)    a relay thread that rings cells[index] for the worker
//   ucxBellArm(worker) -> boolean           arm the worker and have the relay watch its fd once
//   ucxBellDisarm(worker)
//   ucxBellDetach(worker) -> rings relayed
//   ucxBellServe(worker, on)               the relay also progresses the worker while the rank computes
//   ucxBellServed(worker) -> times it did
//
// Two ways to sleep, for two kinds of waiter:
//
// ucxWait blocks the calling thread in poll() on the event fd: for a process whose only source
// of messages is UCX.
//
// A rank has more than one: shared-memory peers ring its doorbell (a futex in a segment of its
// own, src/common/doorbell.ts), and the rank sleeps on that futex, synchronously (futexWait) or
// from the event loop (futexWaitAsync). A futex cannot be poll()ed and an fd cannot be
// futex-waited, and the doorbell's peers are other processes that cannot write into our
// eventfd. So the UCX side is made to ring the doorbell: a relay thread per worker poll()s the
// event fd while the rank sleeps and, when it fires, bumps the doorbell and FUTEX_WAKEs it,
// as ch_sci's interrupt relay does for SCI interrupts. Nothing changes for the sleeper or for
// the shared-memory peers, the sync and async sleeps both work, and a busy rank costs nothing:
// the relay watches only between ucxBellArm (the device's announceSleep(true)) and the first
// event, then goes back to waiting for the next arm, so it never spins on a ready fd that the
// rank, awake, is draining itself.
//
// Serving (ucxBellServe, once the rank registered memory for one-sided access): over tcp UCX
// does put, get and atomics in software at the target, in the target's worker progress, so a
// target that computes without MPI calls would stall every origin's passive-target epoch. The
// relay then also progresses the worker itself, under gUcxLock (ucx_objects.h), but only while
// the rank stays out of the binding: it looks at gUcxCalls every kServeCheckUs; if the count
// moved, the rank is in MPI and progresses itself (the relay does not touch the worker or its
// fd); if it stood still, the relay progresses, arms the worker and watches its fd, and
// progresses again whenever it fires, until the count moves. Its callbacks fill the same rings
// the rank drains (single producer at a time: the lock; HEADs published with release stores).
// The rank's message path pays the lock only; the relay's look every kServeCheckUs is one
// load and a poll() timeout.
//
// Watching (ucx_watch.cc): while a peer watch runs, the relay also ticks it every period, under
// gUcxLock: a heartbeat out, the worker progressed, the watched peer's silence checked.
#if TSMPI_HAVE_UCX

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <iterator>
#include <thread>

#include "args.h"
#include "errors.h"
#include "futex.h"
#include "ucx_objects.h"

namespace tsmpi {
namespace ucx {

std::mutex gUcxLock;
std::atomic<uint32_t> gUcxCalls{0};

// How often a serving relay looks whether the rank is inside the binding (microseconds).
constexpr long kServeCheckUs = 1000;

struct Relay {
  Worker* worker = nullptr;
  std::atomic<bool> serving{false};
  std::atomic<uint32_t> served{0};
  int efd = -1;
  int ctl = -1;  // eventfd: wakes the thread when there is a new arm or it must stop
  int32_t* cell = nullptr;
  napi_ref keepCells = nullptr;
  std::thread thread;
  std::atomic<bool> watching{false};
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> rings{0};
};

namespace {

void Ring(int32_t* cell) {
  __atomic_add_fetch(cell, 1, __ATOMIC_SEQ_CST);
  FutexWake(cell, INT_MAX);
}

void Kick(Relay* r) {
  uint64_t one = 1;
  ssize_t n;
  do n = write(r->ctl, &one, sizeof one);
  while (n < 0 && errno == EINTR);
}

// Takes gUcxLock unless the relay must stop (the JS thread may hold it while it joins us).
bool LockOrStop(Relay* r) {
  while (!r->stop.load()) {
    if (gUcxLock.try_lock()) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return false;
}

// Progresses the worker until it is idle and armed (its fd fires on the next event).
void Serve(Relay* r) {
  Worker* w = r->worker;
  for (;;) {
    while (api.worker_progress(w->h) != 0) {
    }
    ucs_status_t st = api.worker_arm(w->h);
    if (st != UCS_ERR_BUSY) break;
  }
  r->served.fetch_add(1, std::memory_order_relaxed);
}

// The words of the worker's control block that change when there is something for the rank:
// a record in the inbox, a completion, a spill, a failed endpoint, a dropped message.
constexpr int kNewsWords[] = {kCtlInboxHead, kCtlCqHead, kCtlInboxSpilled, kCtlCqSpilled, kCtlEpFailures, kCtlDropped};

// The worker's fd fired while the rank sleeps. A serving worker (its memory is registered) is
// progressed here first: what came may be one-sided work UCX does at this target in software
// (an atomic, a get), which needs no wake-up of the rank (a futex wake costs tens of us on a
// VM, and the origin waits for it). True when that was all: the worker is armed again and the
// rank sleeps on. False when the rank must wake (something for it arrived, or no serving).
bool ServedForSleeper(Relay* r) {
  if (!r->serving.load() || !LockOrStop(r)) return false;
  bool quiet = false;
  if (r->watching.load()) {
    const int32_t* control = r->worker->control;
    int32_t before[std::size(kNewsWords)];
    for (size_t i = 0; i < std::size(kNewsWords); ++i) before[i] = control[kNewsWords[i]];
    Serve(r);
    quiet = true;
    for (size_t i = 0; i < std::size(kNewsWords); ++i) quiet = quiet && control[kNewsWords[i]] == before[i];
  }
  gUcxLock.unlock();
  return quiet;
}

// The peer watch's tick (ucx_watch.cc) when it is due; shortens `timeout` to the next one.
void TickWatch(Relay* r, timespec*& timeout, timespec& until) {
  int64_t next = WatchNextNs(r->worker);
  if (next < 0) return;
  int64_t now = MonotonicNowNs();
  if (now >= next && LockOrStop(r)) {
    bool ring = WatchTick(r->worker, now, r->watching.load());
    gUcxLock.unlock();
    if (ring) {
      r->watching.store(false);  // the rank wakes, progresses and arms again
      Ring(r->cell);
      r->rings.fetch_add(1);
    }
    next = WatchNextNs(r->worker);
    if (next < 0) return;
  }
  int64_t left = next > now ? next - now : 0;
  if (timeout == nullptr || left < timeout->tv_sec * 1000000000LL + timeout->tv_nsec) {
    until = {static_cast<time_t>(left / 1000000000LL), static_cast<long>(left % 1000000000LL)};
    timeout = &until;
  }
}

void RelayLoop(Relay* r) {
  pollfd fds[2] = {{r->ctl, POLLIN, 0}, {r->efd, POLLIN, 0}};
  uint32_t seen = gUcxCalls.load(std::memory_order_relaxed);
  while (!r->stop.load()) {
    timespec period = {0, kServeCheckUs * 1000};
    timespec until = {0, 0};
    timespec* timeout = nullptr;
    TickWatch(r, timeout, until);
    bool watch = r->watching.load();
    bool watchFd = watch;
    if (!watch && r->serving.load()) {
      uint32_t calls = gUcxCalls.load(std::memory_order_relaxed);
      if (timeout == nullptr || timeout->tv_sec > 0 || timeout->tv_nsec > period.tv_nsec) timeout = &period;
      if (calls != seen) {
        seen = calls;  // the rank is in MPI and progresses itself: look again later
      } else if (LockOrStop(r)) {
        if (!r->watching.load()) Serve(r);
        seen = gUcxCalls.load(std::memory_order_relaxed);
        gUcxLock.unlock();
        watchFd = true;
      }
    }
    fds[0].revents = fds[1].revents = 0;
    if (ppoll(fds, watchFd ? 2 : 1, timeout, nullptr) < 0) continue;  // EINTR
    if (fds[0].revents & POLLIN) {
      uint64_t drained;
      ssize_t ignored = read(r->ctl, &drained, sizeof drained);
      (void)ignored;
    }
    // Once per arm: the fd stays ready until the rank, awake, progresses and arms again.
    if (watch && (fds[1].revents & (POLLIN | POLLERR | POLLHUP)) && !ServedForSleeper(r) && r->watching.exchange(false)) {
      Ring(r->cell);
      r->rings.fetch_add(1);
    }
  }
}

Relay* RequireRelay(const Napi::CallbackInfo& info, Worker* w, const char* call) {
  if (w->relay == nullptr) ThrowCodedError(info.Env(), "EINVAL", std::string(call) + ": no doorbell is attached (ucxBellAttach first)");
  return w->relay;
}

int RequireEfd(const Napi::CallbackInfo& info, Worker* w, const char* call) {
  if (w->efd < 0) {
    ThrowCodedError(info.Env(), "EINVAL", std::string(call) + ": the worker has no event fd (create its context with UCX_FEATURE_WAKEUP)");
  }
  return w->efd;
}

// ucp_worker_arm: true when armed, false when events are pending.
bool Arm(const Napi::CallbackInfo& info, Worker* w, const char* call) {
  ucs_status_t st = api.worker_arm(w->h);
  if (st == UCS_OK) return true;
  if (st == UCS_ERR_BUSY) return false;
  ThrowStatus(info.Env(), st, std::string(call) + ": ucp_worker_arm");
}

Napi::Value ArmExport(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxArm");
  RequireEfd(info, w, "ucxArm");
  return Napi::Boolean::New(info.Env(), Arm(info, w, "ucxArm"));
}

Napi::Value Wait(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxWait";
  Worker* w = Unwrap<Worker>(info, 0, call);
  int efd = RequireEfd(info, w, call);
  int64_t deadline = GetDeadline(info, 1, call);
  auto* results = static_cast<Napi::ObjectReference*>(info.Data());
  bool armed;
  {
    std::lock_guard<std::mutex> guard(gUcxLock);
    armed = Arm(info, w, call);
  }
  if (!armed) return results->Get(2u);
  for (;;) {
    int timeout = -1;
    if (deadline >= 0) {
      int64_t left = deadline - MonotonicNowNs();
      if (left <= 0) return results->Get(1u);
      timeout = static_cast<int>(std::min<int64_t>((left + 999999) / 1000000, INT_MAX));
    }
    pollfd fd = {efd, POLLIN, 0};
    int n = poll(&fd, 1, timeout);
    if (n > 0) return results->Get(0u);
    if (n < 0 && errno != EINTR) ThrowSystemError(env, errno, "poll", std::string(call) + ": poll on the UCX event fd failed: " + ErrnoText(errno));
  }
}

Napi::Value BellAttach(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxBellAttach";
  Worker* w = Unwrap<Worker>(info, 0, call);
  int efd = RequireEfd(info, w, call);
  int32_t* cell = GetSharedCell(info, 1, call);
  if (w->relay != nullptr) ThrowCodedError(env, "EBUSY", std::string(call) + ": a doorbell is already attached to this worker");
  auto* r = new Relay();
  r->worker = w;
  r->efd = efd;
  r->cell = cell;
  r->ctl = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (r->ctl < 0) {
    int err = errno;
    delete r;
    ThrowSystemError(env, err, "eventfd", std::string(call) + ": eventfd failed: " + ErrnoText(err));
  }
  try {
    r->thread = std::thread(RelayLoop, r);
  } catch (const std::system_error& e) {
    close(r->ctl);
    delete r;
    ThrowSystemError(env, e.code().value(), "pthread_create", std::string(call) + ": cannot start the relay thread: " + e.what());
  }
  napi_create_reference(env, info[1], 1, &r->keepCells);
  w->relay = r;
  return env.Undefined();
}

Napi::Value BellArm(const Napi::CallbackInfo& info) {
  const char* call = "ucxBellArm";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Relay* r = RequireRelay(info, w, call);
  if (!Arm(info, w, call)) {
    // Events are pending: the sleep about to start must not happen. Ringing the doorbell now
    // makes its futex wait return at once (the sleeper read the doorbell before telling us).
    Ring(r->cell);
    return Napi::Boolean::New(info.Env(), false);
  }
  r->watching.store(true);
  Kick(r);
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value BellDisarm(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxBellDisarm");
  // No system call: if the relay is still in poll() it wakes on the next event, finds nothing
  // to do and goes back to waiting for an arm.
  RequireRelay(info, w, "ucxBellDisarm")->watching.store(false);
  return info.Env().Undefined();
}

Napi::Value BellServe(const Napi::CallbackInfo& info) {
  const char* call = "ucxBellServe";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Relay* r = RequireRelay(info, w, call);
  r->serving.store(info[1].ToBoolean().Value());
  Kick(r);
  return info.Env().Undefined();
}

Napi::Value BellServed(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxBellServed");
  return Napi::Number::New(info.Env(), RequireRelay(info, w, "ucxBellServed")->served.load());
}

Napi::Value BellDetach(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxBellDetach");
  RequireRelay(info, w, "ucxBellDetach");
  return Napi::Number::New(info.Env(), StopRelay(info.Env(), w));
}

}  // namespace

void WakeRelay(Worker* w) {
  if (w->relay != nullptr) Kick(w->relay);
}

uint32_t StopRelay(Napi::Env env, Worker* w) {
  Relay* r = w->relay;
  if (r == nullptr) return 0;
  r->stop.store(true);
  Kick(r);
  r->thread.join();
  uint32_t rings = r->rings.load();  // after the join: a ring's count follows its wake-up
  close(r->ctl);
  if (r->keepCells != nullptr && env != nullptr && !w->tearingDown) napi_delete_reference(env, r->keepCells);
  delete r;
  w->relay = nullptr;
  return rings;
}

void RegisterWakeExports(Napi::Env env, Napi::Object exports) {
  // The results of ucxWait, made once so that a wait allocates no string.
  Napi::Array results = Napi::Array::New(env, 3);
  results.Set(0u, "ok");
  results.Set(1u, "timed-out");
  results.Set(2u, "busy");
  auto* ref = new Napi::ObjectReference(Napi::Persistent(results.As<Napi::Object>()));
  env.AddCleanupHook([ref] {
    ref->SuppressDestruct();  // the reference goes with the environment
    delete ref;
  });
  exports.Set("ucxArm", Napi::Function::New(env, Locked<ArmExport>, "ucxArm"));
  exports.Set("ucxWait", Napi::Function::New(env, Wait, "ucxWait", ref));
  exports.Set("ucxBellAttach", Napi::Function::New(env, BellAttach, "ucxBellAttach"));
  exports.Set("ucxBellArm", Napi::Function::New(env, Locked<BellArm>, "ucxBellArm"));
  exports.Set("ucxBellServe", Napi::Function::New(env, BellServe, "ucxBellServe"));
  exports.Set("ucxBellServed", Napi::Function::New(env, BellServed, "ucxBellServed"));
  exports.Set("ucxBellDisarm", Napi::Function::New(env, BellDisarm, "ucxBellDisarm"));
  exports.Set("ucxBellDetach", Napi::Function::New(env, BellDetach, "ucxBellDetach"));
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
