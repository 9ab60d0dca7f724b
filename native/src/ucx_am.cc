// Messages: UCP active messages that carry the caller's opaque header and a payload, delivered
// into the worker's inbox ring; progress.
//
//   ucxAmSend(ep, header, hOff, hLen, payload, pOff, pLen, flags, token) -> 0 | 1 | -status
//   ucxAmRecv(worker, descId, dest, off, len, token) -> 0 | 1 | -status
//   ucxAmSendIov(ep, header, hOff, hLen, iov, count, keep, flags, token) -> 0 | 1 | -status
//   ucxAmRecvIov(worker, descId, iov, count, keep, token) -> 0 | 1 | -status
//   ucxAmView(worker, descId) -> Uint8Array over eager data UCX holds (no copy)
//   ucxAmDiscard(worker, descId, view?)
//   ucxProgress(worker) -> events handled (0: nothing happened)
//
// Why active messages and not tagged ones: an active message carries a header apart from its
// payload, and a large one arrives as a rendezvous descriptor that can be received later,
// straight into whatever buffer the receiver's matching (in mpid, not in UCX) picks. Tagged
// messages would need the header inside the payload (so a zero-copy receive would land it in
// the user's buffer) or a probe-and-receive per message. Order: UCP sends the messages of one
// endpoint on one ordered lane (a UCT send is refused while older ones wait), so the handler
// sees them in the order they were sent; test/unit/ucx/messages.test.ts checks it.
#if TSMPI_HAVE_UCX

#include <cstdlib>
#include <cstring>

#include "args.h"
#include "errors.h"
#include "ucx_objects.h"

namespace tsmpi {
namespace ucx {

namespace {

constexpr uint32_t kDescIndexBits = 20;  // up to ~1M descriptors held at once per worker
constexpr uint32_t kDescIndexMask = (1u << kDescIndexBits) - 1;

// ucxAmSend's flags (UCX_SEND_* in addon.ts).
constexpr uint32_t kSendEager = 1;      // UCP_AM_SEND_FLAG_EAGER
constexpr uint32_t kSendRndv = 2;       // UCP_AM_SEND_FLAG_RNDV
constexpr uint32_t kSendImmediate = 4;  // UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL: done now or UCS_ERR_NO_RESOURCE
constexpr uint32_t kSendFlags = kSendEager | kSendRndv | kSendImmediate;

// Stores a descriptor; returns its id (index | generation << 20), or UINT32_MAX when full.
uint32_t AddDesc(Worker* w, void* data, size_t length, uint32_t flags) {
  uint32_t index;
  if (!w->freeDescs.empty()) {
    index = w->freeDescs.back();
    w->freeDescs.pop_back();
  } else {
    if (w->descs.size() > kDescIndexMask) return UINT32_MAX;
    index = static_cast<uint32_t>(w->descs.size());
    w->descs.emplace_back();
  }
  Desc& d = w->descs[index];
  d.data = data;
  d.length = length;
  d.flags = flags;
  return index | (d.generation << kDescIndexBits);
}

Desc* FindDesc(Worker* w, uint32_t id) {
  uint32_t index = id & kDescIndexMask;
  if (index >= w->descs.size()) return nullptr;
  Desc& d = w->descs[index];
  if (d.flags == 0 || (d.generation & ((1u << (32 - kDescIndexBits)) - 1)) != id >> kDescIndexBits) return nullptr;
  return &d;
}

void FreeDesc(Worker* w, Desc* d) {
  d->flags = 0;
  d->data = nullptr;
  d->generation = (d->generation + 1) & ((1u << (32 - kDescIndexBits)) - 1);
  w->freeDescs.push_back(static_cast<uint32_t>(d - w->descs.data()));
}

Desc* GetDesc(const Napi::CallbackInfo& info, Worker* w, size_t index, const char* call) {
  uint32_t id = static_cast<uint32_t>(GetInteger(info, index, call, "descId", 0, 4294967295.0));
  Desc* d = FindDesc(w, id);
  if (d == nullptr) {
    ThrowRangeError(info.Env(), std::string(call) + ": descriptor " + std::to_string(id) +
                                    " is not held by this worker (already received or discarded?)");
  }
  return d;
}

void Drop(Worker* w) {
  w->dropped++;
  w->control[kCtlDropped] = static_cast<int32_t>(w->dropped);
}

void OnRecvDone(void* request, ucs_status_t status, size_t length, void* userData) {
  CompleteOp(request, status, userData, static_cast<int32_t>(length > 0x7fffffff ? 0x7fffffff : length));
}

// What every active-message send shares: the header and flags checked, an Op with its own copy
// of the header (UCX may read it after the call returns: a queued or rendezvous send), and the
// request parameters; the caller adds its datatype and sends.
Op* StartSend(const Napi::CallbackInfo& info, const char* call, Endpoint* ep, const Bytes& header, uint32_t flags,
              int32_t token, ucp_request_param_t* p) {
  Napi::Env env = info.Env();
  Worker* w = ep->worker;
  if (header.length > w->maxHeader) {
    ThrowRangeError(env, std::string(call) + ": a header of " + std::to_string(header.length) +
                             " bytes is over the limit of " + std::to_string(w->maxHeader));
  }
  if ((flags & kSendEager) && (flags & kSendRndv)) {
    ThrowRangeError(env, std::string(call) + ": flags asks for eager and rendezvous at once");
  }
  if (w->finished != nullptr) ReclaimOps(env, w);
  Op* op = TakeOp(w, token, kCqSend);
  if (header.length > 0) memcpy(op->header, header.data, header.length);
  p->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  if (flags & kSendImmediate) p->op_attr_mask |= UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  p->cb.send = OnSendDone;
  p->user_data = op;
  p->flags = ((flags & kSendEager) ? UCP_AM_SEND_FLAG_EAGER : 0) | ((flags & kSendRndv) ? UCP_AM_SEND_FLAG_RNDV : 0);
  return op;
}

Napi::Value AmSend(const Napi::CallbackInfo& info) {
  const char* call = "ucxAmSend";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  Bytes header = GetRange(info, 1, call, "header");
  Bytes payload = GetRange(info, 4, call, "payload");
  uint32_t flags = static_cast<uint32_t>(GetInteger(info, 7, call, "flags", 0, kSendFlags));
  int32_t token = GetToken(info, 8, call);
  ucp_request_param_t p;
  Op* op = StartSend(info, call, ep, header, flags, token, &p);
  ucs_status_ptr_t ret = api.am_send_nbx(ep->h, kAmId, op->header, header.length, payload.data, payload.length, &p);
  return Napi::Number::New(info.Env(), Submitted(info.Env(), op, ret, info[4], Napi::Value()));
}

Napi::Value AmRecv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxAmRecv";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Desc* d = GetDesc(info, w, 1, call);
  Bytes dest = GetRange(info, 2, call, "dest");
  int32_t token = GetToken(info, 5, call);
  if (dest.length != d->length) {
    ThrowRangeError(env, std::string(call) + ": the message has " + std::to_string(d->length) + " bytes, dest " +
                             std::to_string(dest.length) + " (receive it whole into a buffer of its length, or ucxAmDiscard it)");
  }
  if (w->finished != nullptr) ReclaimOps(env, w);
  if (d->flags & kDescCopy) {
    memcpy(dest.data, d->data, dest.length);
    free(d->data);
    FreeDesc(w, d);
    return Napi::Number::New(env, 0);
  }
  void* data = d->data;
  FreeDesc(w, d);  // UCX owns the descriptor from the call on, whatever it returns
  Op* op = TakeOp(w, token, kCqRecv);
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv_am = OnRecvDone;
  p.user_data = op;
  ucs_status_ptr_t ret = api.am_recv_data_nbx(w->h, data, dest.data, dest.length, &p);
  return Napi::Number::New(env, Submitted(env, op, ret, info[2], Napi::Value()));
}

// An iov list's pieces into op->iov (reused with the pooled Op: no allocation once it has grown).
void FillIov(Op* op, const IovPairs& list) {
  op->iov.resize(list.count);
  for (size_t i = 0; i < list.count; ++i) {
    op->iov[i].buffer = reinterpret_cast<void*>(static_cast<uintptr_t>(list.pairs[2 * i]));
    op->iov[i].length = static_cast<size_t>(list.pairs[2 * i + 1]);
  }
}

// ucxAmSend with the payload as user-memory pieces (a derived datatype's), which UCX gathers
// itself: a rendezvous moves them zero-copy. `keep` (the memory's buffer) stays referenced
// until the completion.
Napi::Value AmSendIov(const Napi::CallbackInfo& info) {
  const char* call = "ucxAmSendIov";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  Bytes header = GetRange(info, 1, call, "header");
  IovPairs list = GetIovPairs(info, 4, call, "iov", "count");
  uint32_t flags = static_cast<uint32_t>(GetInteger(info, 7, call, "flags", 0, kSendEager | kSendRndv));
  int32_t token = GetToken(info, 8, call);
  ucp_request_param_t p;
  Op* op = StartSend(info, call, ep, header, flags, token, &p);
  FillIov(op, list);
  p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
  p.datatype = ucp_dt_make_iov();
  ucs_status_ptr_t ret = api.am_send_nbx(ep->h, kAmId, op->header, header.length, op->iov.data(), op->iov.size(), &p);
  return Napi::Number::New(info.Env(), Submitted(info.Env(), op, ret, info[6], Napi::Value()));
}

// ucxAmRecv into user-memory pieces (a derived datatype's receive buffer): UCX scatters the
// message itself, so a rendezvous lands zero-copy. The pieces must add up to the message.
Napi::Value AmRecvIov(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxAmRecvIov";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Desc* d = GetDesc(info, w, 1, call);
  IovPairs list = GetIovPairs(info, 2, call, "iov", "count");
  int32_t token = GetToken(info, 5, call);
  if (list.total != static_cast<double>(d->length)) {
    ThrowRangeError(env, std::string(call) + ": the message has " + std::to_string(d->length) + " bytes, the iov lists " +
                             FormatNumber(list.total) + " (receive it whole, or ucxAmDiscard it)");
  }
  if (w->finished != nullptr) ReclaimOps(env, w);
  if (d->flags & kDescCopy) {
    const auto* from = static_cast<const uint8_t*>(d->data);
    for (size_t i = 0; i < list.count; ++i) {
      auto length = static_cast<size_t>(list.pairs[2 * i + 1]);
      memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(list.pairs[2 * i])), from, length);
      from += length;
    }
    free(d->data);
    FreeDesc(w, d);
    return Napi::Number::New(env, 0);
  }
  void* data = d->data;
  FreeDesc(w, d);
  Op* op = TakeOp(w, token, kCqRecv);
  FillIov(op, list);
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  p.cb.recv_am = OnRecvDone;
  p.user_data = op;
  p.datatype = ucp_dt_make_iov();
  ucs_status_ptr_t ret = api.am_recv_data_nbx(w->h, data, op->iov.data(), op->iov.size(), &p);
  return Napi::Number::New(env, Submitted(env, op, ret, info[4], Napi::Value()));
}

// A view of eager data UCX holds for a descriptor (kDescData), read in place: an external
// ArrayBuffer over UCX's memory, valid until ucxAmDiscard, which detaches it before the memory
// goes back to UCX (a view kept by mistake then reads as empty, never as freed memory).
Napi::Value AmView(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxAmView";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Desc* d = GetDesc(info, w, 1, call);
  if (!(d->flags & kDescData)) {
    ThrowRangeError(env, std::string(call) + ": only eager data UCX holds can be viewed (this is a rendezvous or a copy)");
  }
  napi_value ab;
  if (napi_create_external_arraybuffer(env, d->data, d->length, nullptr, nullptr, &ab) != napi_ok) {
    ThrowCodedError(env, "ENOTSUP", std::string(call) + ": this runtime cannot make an external ArrayBuffer");
  }
  return Napi::Uint8Array::New(env, d->length, Napi::ArrayBuffer(env, ab), 0);
}

Napi::Value AmDiscard(const Napi::CallbackInfo& info) {
  const char* call = "ucxAmDiscard";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Desc* d = GetDesc(info, w, 1, call);
  if (info.Length() > 2 && info[2].IsTypedArray()) {
    napi_detach_arraybuffer(info.Env(), info[2].As<Napi::TypedArray>().ArrayBuffer());
  }
  if (d->flags & kDescCopy) {
    free(d->data);
  } else {
    api.am_data_release(w->h, d->data);  // a rendezvous sender's request completes with UCS_OK
  }
  FreeDesc(w, d);
  return info.Env().Undefined();
}

Napi::Value Progress(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Worker* w = Unwrap<Worker>(info, 0, "ucxProgress");
  if (w->finished != nullptr) ReclaimOps(env, w);
  uint32_t moved = 0;
  if (w->inbox.Spilled() > 0) moved += w->inbox.Drain();
  if (w->cq.Spilled() > 0) moved += w->cq.Drain();
  unsigned events = api.worker_progress(w->h);
  if (w->finished != nullptr) ReclaimOps(env, w);
  return Napi::Number::New(env, static_cast<double>(events + moved));
}

}  // namespace

ucs_status_t OnAmMessage(void* arg, const void* header, size_t headerLength, void* data, size_t length,
                         const ucp_am_recv_param_t* param) {
  auto* w = static_cast<Worker*>(arg);
  bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  bool persistent = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) != 0;
  // Our peers send at most kMaxHeader bytes of header, eager payloads below 4 GiB (mpid's eager
  // limit is far lower) and rendezvous messages of up to kMaxMessageBytes; anything else is not
  // ours. A rendezvous sender learns it from its completion status.
  if (headerLength > kMaxHeader || length > (rndv ? kMaxMessageBytes : UINT32_MAX)) {
    Drop(w);
    return rndv ? UCS_ERR_EXCEEDS_LIMIT : UCS_OK;
  }
  auto hlen = static_cast<uint32_t>(headerLength);
  size_t len = length;
  if (!rndv && len <= w->inlineMax && !(persistent && len >= w->heldMin)) {
    w->inbox.Put(kRecMsg, header, hlen, data, static_cast<uint32_t>(len), len, 0);
    return UCS_OK;
  }
  uint32_t flags;
  void* keep = data;
  ucs_status_t ret = UCS_INPROGRESS;
  if (rndv) {
    flags = kDescRndv;
  } else if (persistent) {
    flags = kDescData;
  } else {
    // Eager data UCX will not let us keep past this callback: a native copy.
    keep = malloc(len == 0 ? 1 : len);
    if (keep == nullptr) {
      Drop(w);
      return UCS_OK;
    }
    memcpy(keep, data, len);
    flags = kDescCopy;
    ret = UCS_OK;
  }
  uint32_t id = AddDesc(w, keep, len, flags);
  if (id == UINT32_MAX) {
    if (flags == kDescCopy) free(keep);
    Drop(w);
    return rndv ? UCS_ERR_EXCEEDS_LIMIT : UCS_OK;
  }
  w->inbox.Put(kRecDesc | flags, header, hlen, nullptr, 0, len, id);
  return ret;
}

void ReleaseDescs(Worker* w) {
  for (Desc& d : w->descs) {
    if (d.flags == 0) continue;
    if (d.flags & kDescCopy) {
      free(d.data);
    } else {
      api.am_data_release(w->h, d.data);
    }
    d.flags = 0;
    d.data = nullptr;
  }
  w->descs.clear();
  w->freeDescs.clear();
}

void RegisterAmExports(Napi::Env env, Napi::Object exports) {
  exports.Set("ucxAmSend", Napi::Function::New(env, Locked<AmSend>, "ucxAmSend"));
  exports.Set("ucxAmRecv", Napi::Function::New(env, Locked<AmRecv>, "ucxAmRecv"));
  exports.Set("ucxAmSendIov", Napi::Function::New(env, Locked<AmSendIov>, "ucxAmSendIov"));
  exports.Set("ucxAmRecvIov", Napi::Function::New(env, Locked<AmRecvIov>, "ucxAmRecvIov"));
  exports.Set("ucxAmView", Napi::Function::New(env, Locked<AmView>, "ucxAmView"));
  exports.Set("ucxAmDiscard", Napi::Function::New(env, Locked<AmDiscard>, "ucxAmDiscard"));
  exports.Set("ucxProgress", Napi::Function::New(env, Locked<Progress>, "ucxProgress"));
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
