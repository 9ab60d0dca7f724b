// The native objects behind the UCX handles JavaScript holds (Externals), and what they own.
//
// Ownership: context -> workers and memory maps; worker -> endpoints, pending operations and
// received descriptors; endpoint -> unpacked remote keys. Closing a parent closes its children
// first, in the order UCX requires (remote keys before their endpoint, endpoints before their
// worker, workers and maps before the context). A Handle has two owners, the External
// (until it is garbage-collected) and UCX (until it is closed): it is freed when both let go, so
// neither a late UCX callback nor a stale External can reach freed memory. An environment's
// teardown closes every context still open (ucx_context.cc), so a process that exits without
// closing leaves no connection half-open.
#ifndef TSMPI_UCX_OBJECTS_H_
#define TSMPI_UCX_OBJECTS_H_

#if TSMPI_HAVE_UCX

#include <napi.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "args.h"
#include "ucx_api.h"
#include "ucx_rings.h"

namespace tsmpi {
namespace ucx {

enum class Kind : uint32_t { kContext, kWorker, kEndpoint, kMem, kRkey };

struct Handle {
  explicit Handle(Kind k) : kind(k) {}
  virtual ~Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  const Kind kind;
  bool open = true;     // usable from JavaScript
  bool native = true;   // UCX (or a pending close) still refers to it
  bool jsHeld = false;  // an External refers to it

  // UCX is done with it (closed and no callback can come): freed now unless an External holds it.
  void ReleaseNative() {
    open = false;
    native = false;
    if (!jsHeld) delete this;
  }
};

struct Worker;
struct Endpoint;
struct Rkey;

// A pending UCX operation: its completion token, what must stay alive until it completes
// (the JavaScript buffers it reads or writes, as references) and a private copy of an active
// message's header, which UCX may read after the send call returns. Pooled per worker.
struct Op {
  Worker* worker = nullptr;
  Op* next = nullptr;
  int32_t token = 0;
  int32_t kind = 0;
  napi_ref keep[2] = {nullptr, nullptr};
  void* request = nullptr;      // UCX's request, freed once its callback has returned
  Endpoint* closing = nullptr;  // kCqClose: the endpoint whose close this is (token < 0: post nothing)
  std::vector<ucp_dt_iov_t> iov;  // an iov send's or receive's pieces (UCX reads them until completion)
  // An active message's header, or an atomic's operand (8-byte aligned for it).
  alignas(8) uint8_t header[kMaxHeader];
};

// A received message whose data stayed with UCX (rendezvous, or eager data UCX let us keep) or
// in native memory, until ucxAmRecv or ucxAmDiscard. Ids carry a generation so a stale id fails.
struct Desc {
  void* data = nullptr;   // UCX's descriptor, or our copy (kDescCopy)
  size_t length = 0;
  uint32_t flags = 0;     // 0: free slot
  uint32_t generation = 0;
};

struct Registry;  // ucx_context.cc: an environment's open contexts

// The active-message id every send of the binding uses (the header is the caller's framing).
constexpr unsigned kAmId = 0;
// The active-message id of the peer watch's heartbeats (ucx_watch.cc).
constexpr unsigned kBeatId = 1;

// A worker's peer watch (ucx_watch.cc): whom it beats to, whom it watches, and when it last
// heard from it. Set by the JavaScript thread and ticked by the relay, both under gUcxLock;
// the beat callback runs under it too (inside a progress call).
struct PeerWatch {
  std::atomic<bool> active{false};
  Endpoint* beatTo = nullptr;     // the successor's endpoint, or null
  int32_t self = 0;               // our world rank, in every beat
  int32_t watched = -1;           // the predecessor's world rank (its endpoint's userId), or -1
  int64_t periodNs = 0;
  int64_t timeoutNs = 0;
  int64_t nextBeatNs = 0;
  bool reported = false;          // the silence was reported once
  std::atomic<int64_t> lastHeardNs{0};
  std::atomic<bool> byeHeard{false};
  std::atomic<uint32_t> heard{0};
  int32_t beatHeader[2] = {0, 0};  // what UCX may still read of a queued beat
  int32_t byeHeader[2] = {0, 0};
};

struct Context : Handle {
  Context() : Handle(Kind::kContext) {}
  Registry* registry = nullptr;
  ucp_context_h h = nullptr;
  uint64_t features = 0;
  std::vector<Worker*> workers;
  std::vector<struct Mem*> mems;
};

struct Relay;  // ucx_wake.cc: the thread that rings a doorbell when the worker's event fd fires

struct Worker : Handle {
  Worker() : Handle(Kind::kWorker) {}
  Context* context = nullptr;
  ucp_worker_h h = nullptr;
  int efd = -1;  // -1 without UCP_FEATURE_WAKEUP
  uint32_t inlineMax = 0;
  uint32_t heldMin = UINT32_MAX;    // eager data of this size UCX lets us keep stays there (a descriptor)
  uint32_t maxHeader = kMaxHeader;  // the smaller of kMaxHeader and UCX's limit
  Inbox inbox;
  CompletionQueue cq;
  int32_t* control = nullptr;
  napi_ref keepRings[2] = {nullptr, nullptr};
  std::vector<Endpoint*> eps;      // open or closing
  std::vector<Desc> descs;
  std::vector<uint32_t> freeDescs;
  std::vector<Op*> allOps;         // every Op ever made (the pool's storage), freed with the worker
  Op* freeOps = nullptr;
  Op* finished = nullptr;          // completed, references not yet deleted (done on the JS thread)
  size_t pendingOps = 0;
  uint32_t epFailures = 0;
  uint32_t dropped = 0;
  Relay* relay = nullptr;
  PeerWatch watch;
  bool tearingDown = false;        // environment teardown: references die with it
};

struct Endpoint : Handle {
  Endpoint() : Handle(Kind::kEndpoint) {}
  Worker* worker = nullptr;
  ucp_ep_h h = nullptr;
  int32_t userId = 0;
  ucs_status_t failed = UCS_OK;
  bool closing = false;
  std::vector<Rkey*> rkeys;
};

struct Mem : Handle {
  Mem() : Handle(Kind::kMem) {}
  Context* context = nullptr;
  ucp_mem_h h = nullptr;
  uint8_t* address = nullptr;
  size_t length = 0;
  napi_ref keep = nullptr;  // the mapped buffer stays alive while mapped
};

struct Rkey : Handle {
  Rkey() : Handle(Kind::kRkey) {}
  Endpoint* ep = nullptr;
  ucp_rkey_h h = nullptr;
};

// ------------------------------------------------------------------ the UCX lock

// Workers are UCS_THREAD_MODE_SERIALIZED: two threads reach them, one at a time. The JavaScript
// thread holds gUcxLock for every call of the binding that reaches UCX (Locked<> below, at
// registration), and the relay thread (ucx_wake.cc) holds it while it progresses a worker on
// the rank's behalf (the rank computes, no MPI call: one-sided operations over tcp are done in
// software at the target and need its worker's progress). Uncontended, a lock and an unlock
// are two atomic instructions per call: the message path's whole cost. gUcxCalls counts the
// JavaScript thread's calls (under the lock, a plain store): the relay progresses only after a
// period in which it did not move, so it never competes with a rank that progresses itself.
extern std::mutex gUcxLock;
extern std::atomic<uint32_t> gUcxCalls;

template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value Locked(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> guard(gUcxLock);
  gUcxCalls.store(gUcxCalls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return F(info);
}

// ------------------------------------------------------------------ handles <-> JavaScript

// An External for a new handle (the External becomes one of its owners).
Napi::Value WrapHandle(Napi::Env env, Handle* handle);

// The open handle of `kind` in argument `index`; TypeError for anything else, Error{code:
// 'EBADF'} for a closed one. `what` names it in messages ("endpoint").
Handle* UnwrapHandle(const Napi::CallbackInfo& info, size_t index, const char* call, Kind kind, const char* what);

template <typename T>
T* Unwrap(const Napi::CallbackInfo& info, size_t index, const char* call);

template <> inline Context* Unwrap<Context>(const Napi::CallbackInfo& i, size_t n, const char* c) {
  return static_cast<Context*>(UnwrapHandle(i, n, c, Kind::kContext, "context"));
}
template <> inline Worker* Unwrap<Worker>(const Napi::CallbackInfo& i, size_t n, const char* c) {
  return static_cast<Worker*>(UnwrapHandle(i, n, c, Kind::kWorker, "worker"));
}
template <> inline Endpoint* Unwrap<Endpoint>(const Napi::CallbackInfo& i, size_t n, const char* c) {
  return static_cast<Endpoint*>(UnwrapHandle(i, n, c, Kind::kEndpoint, "endpoint"));
}
template <> inline Mem* Unwrap<Mem>(const Napi::CallbackInfo& i, size_t n, const char* c) {
  return static_cast<Mem*>(UnwrapHandle(i, n, c, Kind::kMem, "memory map"));
}
template <> inline Rkey* Unwrap<Rkey>(const Napi::CallbackInfo& i, size_t n, const char* c) {
  return static_cast<Rkey*>(UnwrapHandle(i, n, c, Kind::kRkey, "remote key"));
}

// ------------------------------------------------------------------ operations

// An Op for a new operation (from the pool). `token` is the caller's.
Op* TakeOp(Worker* w, int32_t token, int32_t kind);

// Returns an Op that never went to UCX (the call completed at once or failed) to the pool.
void ReturnOp(Op* op);

// After UCX returned a request for `op`: keeps `a` and `b` (JavaScript values, may be empty)
// alive until it completes.
void KeepAlive(Napi::Env env, Op* op, Napi::Value a, Napi::Value b);

// The UCX callback of every request: posts the completion, frees the request, and queues the
// Op for ReclaimOps (JavaScript thread, where references can be deleted).
void CompleteOp(void* request, ucs_status_t status, void* userData, int32_t value);
void OnSendDone(void* request, ucs_status_t status, void* userData);

// Deletes the references of completed Ops and pools them; finishes endpoint closes.
void ReclaimOps(Napi::Env env, Worker* w);

// Turns the pointer an nbx call returned into 0 (done now), 1 (pending: a completion with the
// token will come) or a negative ucs_status_t (failed at once; nothing will come).
int32_t Submitted(Napi::Env env, Op* op, ucs_status_ptr_t ret, Napi::Value keepA, Napi::Value keepB);

// An integer token in [0, 2^31 - 1] from argument `index`.
int32_t GetToken(const Napi::CallbackInfo& info, size_t index, const char* call);

// Bytes [offset, offset + length) of the buffer in argument `index`, with the offset and length
// in the next two arguments; RangeError when they lie outside it.
Bytes GetRange(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name);

// ------------------------------------------------------------------ teardown (ucx_context.cc)

// Closes an endpoint now (force), its remote keys first, and waits for UCX to finish.
void CloseEndpointNow(Endpoint* ep);
// env is null in the environment's own teardown (references then die with it).
void DestroyWorker(Napi::Env env, Worker* w);
void DestroyContext(Napi::Env env, Context* c);
// Stops the worker's doorbell relay, if any; returns how many times it rang (ucx_wake.cc).
uint32_t StopRelay(Napi::Env env, Worker* w);

// Releases every descriptor the worker still holds (ucx_am.cc).
void ReleaseDescs(Worker* w);

// ------------------------------------------------------------------ peer watch (ucx_watch.cc)

// The handler of kBeatId.
ucs_status_t OnBeat(void* arg, const void* header, size_t headerLength, void* data, size_t length,
                    const ucp_am_recv_param_t* param);
// When the relay should tick next (monotonic ns), or -1 while no watch runs.
int64_t WatchNextNs(Worker* w);
// The relay's tick, under gUcxLock: beat, progress, check the silence. True: ring the rank's
// doorbell (a peer is lost, or events are pending that the rank's armed fd would have reported).
bool WatchTick(Worker* w, int64_t nowNs, bool fdWatched);
// Wakes the worker's relay thread so it sees a changed watch (ucx_wake.cc).
void WakeRelay(Worker* w);

// ------------------------------------------------------------------ registration (ucx_exports.cc)

void RegisterContextExports(Napi::Env env, Napi::Object exports);  // ucx_context.cc
void RegisterAmExports(Napi::Env env, Napi::Object exports);       // ucx_am.cc
void RegisterRmaExports(Napi::Env env, Napi::Object exports);      // ucx_rma.cc
void RegisterWakeExports(Napi::Env env, Napi::Object exports);     // ucx_wake.cc
void RegisterWatchExports(Napi::Env env, Napi::Object exports);    // ucx_watch.cc

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
#endif  // TSMPI_UCX_OBJECTS_H_
