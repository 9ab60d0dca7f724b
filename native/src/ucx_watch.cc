// Peer watch: heartbeats between the ranks of a job, so that a host that drops off the network
// is noticed whatever TCP is doing.
//
//   ucxWatchStart(worker, beatTo | null, self, watched, periodMs, timeoutMs)
//   ucxWatchStop(worker, sayBye) -> beats heard
//
// Why: TCP's keepalive (ch_ucx's UCX defaults) notices a lost host only on an idle connection.
// When data was in flight at the cut the connection retransmits instead, and TCP gives up only
// after net.ipv4.tcp_retries2 (about 15 minutes), so a rank waiting for the lost host waits that
// long. Open MPI's ULFM detector solves the same problem the same way: each process observes
// one other in a ring, which sends it a small message every period; silence for longer than a
// timeout means the observed process (or its host, or the way to it) is gone. That costs one
// message per period per rank, whatever the job's size.
//
// The ring is the world's, in rank order (src/ch_ucx/device.ts picks the neighbours): a rank
// beats to its successor and watches its predecessor when UCX carries that pair. Beats are
// their own active message (kBeatId), handled in the callback: they never reach the inbox.
//
// The relay thread (ucx_wake.cc) does the work, so that a rank that computes for minutes
// without an MPI call still beats and still hears: every period it takes gUcxLock, sends the
// beat, progresses the worker (the beat must leave, and the predecessor's must be heard), and
// checks the silence. A silence past the timeout becomes an endpoint failure of the watched
// rank in the completion queue (UCS_ERR_ENDPOINT_TIMEOUT), as UCX's own peer failures do, and
// the rank's doorbell rings: a rank asleep in a wait wakes, and its wait ends with the lost
// rank and its host named. A rank that finalizes says goodbye (a last beat with kBeatBye), so
// its observer stops watching it.
#if TSMPI_HAVE_UCX

#include <cstring>

#include "args.h"
#include "errors.h"
#include "ucx_objects.h"

namespace tsmpi {
namespace ucx {

namespace {

constexpr int32_t kBeatBye = 1;

void SendBeat(PeerWatch& pw, int32_t flags) {
  int32_t* header = flags == kBeatBye ? pw.byeHeader : pw.beatHeader;
  header[0] = pw.self;
  header[1] = flags;
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = UCP_AM_SEND_FLAG_EAGER;
  ucs_status_ptr_t ret = api.am_send_nbx(pw.beatTo->h, kBeatId, header, sizeof pw.beatHeader, nullptr, 0, &p);
  // A beat still queued (the network is slow or cut) finishes, or fails with its endpoint, by
  // itself; its header stays valid (the watch's own memory, rewritten with the same words).
  if (UCS_PTR_IS_PTR(ret) && ret != nullptr) api.request_free(ret);
}

Napi::Value WatchStart(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxWatchStart";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Endpoint* to = info[1].IsNull() ? nullptr : Unwrap<Endpoint>(info, 1, call);
  if (to != nullptr && to->worker != w) ThrowRangeError(env, std::string(call) + ": the endpoint belongs to another worker");
  if (w->relay == nullptr) ThrowCodedError(env, "EINVAL", std::string(call) + ": no doorbell is attached (ucxBellAttach first)");
  auto self = static_cast<int32_t>(GetInteger(info, 2, call, "self", 0, 2147483647.0));
  auto watched = static_cast<int32_t>(GetInteger(info, 3, call, "watched", -1, 2147483647.0));
  double periodMs = GetInteger(info, 4, call, "periodMs", 1, 3600000.0);
  double timeoutMs = GetInteger(info, 5, call, "timeoutMs", 1, 86400000.0);
  if (timeoutMs <= periodMs) {
    ThrowRangeError(env, std::string(call) + ": timeoutMs (" + std::to_string(timeoutMs) +
                             ") must be longer than periodMs (" + std::to_string(periodMs) + "), or every peer looks lost");
  }
  PeerWatch& pw = w->watch;
  int64_t now = MonotonicNowNs();
  pw.beatTo = to;
  pw.self = self;
  pw.watched = watched;
  pw.periodNs = static_cast<int64_t>(periodMs * 1e6);
  pw.timeoutNs = static_cast<int64_t>(timeoutMs * 1e6);
  pw.lastHeardNs.store(now);
  pw.byeHeard.store(false);
  pw.heard.store(0);
  pw.reported = false;
  pw.nextBeatNs = now;
  pw.active.store(true);
  WakeRelay(w);
  return env.Undefined();
}

Napi::Value WatchStop(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxWatchStop");
  PeerWatch& pw = w->watch;
  if (pw.active.exchange(false) && info[1].ToBoolean().Value() && pw.beatTo != nullptr && pw.beatTo->open &&
      pw.beatTo->failed == UCS_OK) {
    SendBeat(pw, kBeatBye);
  }
  return Napi::Number::New(info.Env(), pw.heard.load());
}

}  // namespace

ucs_status_t OnBeat(void* arg, const void* header, size_t headerLength, void*, size_t, const ucp_am_recv_param_t*) {
  auto* w = static_cast<Worker*>(arg);
  PeerWatch& pw = w->watch;
  int32_t words[2];
  if (headerLength != sizeof words) return UCS_OK;  // not a beat of ours
  memcpy(words, header, sizeof words);
  if (words[0] != pw.watched) return UCS_OK;
  pw.lastHeardNs.store(MonotonicNowNs());
  pw.heard.fetch_add(1, std::memory_order_relaxed);
  if (words[1] == kBeatBye) pw.byeHeard.store(true);
  return UCS_OK;
}

int64_t WatchNextNs(Worker* w) {
  PeerWatch& pw = w->watch;
  return pw.active.load() ? pw.nextBeatNs : -1;
}

bool WatchTick(Worker* w, int64_t now, bool fdWatched) {
  PeerWatch& pw = w->watch;
  if (!pw.active.load()) return false;
  pw.nextBeatNs = now + pw.periodNs;
  if (pw.beatTo != nullptr && pw.beatTo->open && pw.beatTo->failed == UCS_OK) SendBeat(pw, 0);
  unsigned events = 0;
  for (unsigned n; (n = api.worker_progress(w->h)) != 0;) events += n;
  if (pw.watched >= 0 && !pw.reported && !pw.byeHeard.load() && now - pw.lastHeardNs.load() > pw.timeoutNs) {
    pw.reported = true;
    w->cq.Put(pw.watched, UCS_ERR_ENDPOINT_TIMEOUT, kCqEpFailed, 0);
    return true;
  }
  // The progress may have taken events that the worker's armed fd was to report to a sleeping
  // rank: arm it again, and wake the rank if events are pending.
  if (fdWatched && (events > 0 || api.worker_arm(w->h) == UCS_ERR_BUSY)) return true;
  return false;
}

void RegisterWatchExports(Napi::Env env, Napi::Object exports) {
  exports.Set("ucxWatchStart", Napi::Function::New(env, Locked<WatchStart>, "ucxWatchStart"));
  exports.Set("ucxWatchStop", Napi::Function::New(env, Locked<WatchStop>, "ucxWatchStop"));
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
