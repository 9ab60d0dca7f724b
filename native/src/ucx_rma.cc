// One-sided access: memory maps of JavaScript buffers, remote keys, put/get, atomics, flush.
//
//   ucxMemMap(context, buffer) -> mem          (the buffer stays alive while mapped)
//   ucxMemAddress(mem) -> number               (the remote address peers use)
//   ucxMemUnmap(mem)
//   ucxRkeyPack(mem) -> Uint8Array
//   ucxRkeyUnpack(ep, bytes) -> rkey           (destroyed with its endpoint at the latest)
//   ucxRkeyDestroy(rkey)
//   ucxPut(ep, src, off, len, remoteAddr, rkey, token) -> 0 | 1 | -status
//   ucxGet(ep, dest, off, len, remoteAddr, rkey, token) -> 0 | 1 | -status
//   ucxAtomic(ep, op, size, operands, opOff, result | null, resOff, remoteAddr, rkey, token) -> 0 | 1 | -status
//   ucxEpFlush(ep, token), ucxWorkerFlush(worker, token) -> 0 | 1 | -status
//   ucxFence(worker)
//
// A put is locally complete when its call returns 0 or its completion arrives (the source may
// be reused); it is visible at the target after a flush completes.
#if TSMPI_HAVE_UCX

#include <algorithm>
#include <cstring>

#include "args.h"
#include "errors.h"
#include "ucx_objects.h"

namespace tsmpi {
namespace ucx {

void UnmapMem(Napi::Env env, Mem* m) {
  api.mem_unmap(m->context->h, m->h);
  if (m->keep != nullptr && env != nullptr) napi_delete_reference(env, m->keep);
  m->keep = nullptr;
  auto& mems = m->context->mems;
  mems.erase(std::remove(mems.begin(), mems.end(), m), mems.end());
  m->ReleaseNative();
}

namespace {

Napi::Value MemMap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxMemMap";
  Context* c = Unwrap<Context>(info, 0, call);
  Bytes bytes = GetBytes(info, 1, call, "buffer");
  if (bytes.length == 0) ThrowRangeError(env, std::string(call) + ": the buffer is empty; map at least one byte");
  if (!(c->features & (UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64))) {
    ThrowRangeError(env, std::string(call) + ": the context was created without UCX_FEATURE_RMA or UCX_FEATURE_AMO*");
  }
  ucp_mem_map_params_t params = {};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = bytes.data;
  params.length = bytes.length;
  ucp_mem_h h = nullptr;
  ucs_status_t st = api.mem_map(c->h, &params, &h);
  if (st != UCS_OK) ThrowStatus(env, st, std::string(call) + ": ucp_mem_map of " + std::to_string(bytes.length) + " bytes");
  auto* m = new Mem();
  m->context = c;
  m->h = h;
  m->address = bytes.data;
  m->length = bytes.length;
  napi_create_reference(env, info[1], 1, &m->keep);
  c->mems.push_back(m);
  return WrapHandle(env, m);
}

Napi::Value MemAddress(const Napi::CallbackInfo& info) {
  Mem* m = Unwrap<Mem>(info, 0, "ucxMemAddress");
  return Napi::Number::New(info.Env(), static_cast<double>(reinterpret_cast<uintptr_t>(m->address)));
}

Napi::Value MemUnmap(const Napi::CallbackInfo& info) {
  UnmapMem(info.Env(), Unwrap<Mem>(info, 0, "ucxMemUnmap"));
  return info.Env().Undefined();
}

Napi::Value RkeyPack(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Mem* m = Unwrap<Mem>(info, 0, "ucxRkeyPack");
  void* packed = nullptr;
  size_t size = 0;
  ucs_status_t st = api.rkey_pack(m->context->h, m->h, &packed, &size);
  if (st != UCS_OK) ThrowStatus(env, st, "ucxRkeyPack: ucp_rkey_pack");
  Napi::Uint8Array bytes = Napi::Uint8Array::New(env, size);
  memcpy(bytes.Data(), packed, size);
  api.rkey_buffer_release(packed);
  return bytes;
}

Napi::Value RkeyUnpack(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxRkeyUnpack";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  Bytes bytes = GetBytes(info, 1, call, "bytes");
  if (bytes.length == 0) ThrowRangeError(env, std::string(call) + ": bytes is empty (a peer's ucxRkeyPack bytes expected)");
  ucp_rkey_h h = nullptr;
  ucs_status_t st = api.ep_rkey_unpack(ep->h, bytes.data, &h);
  if (st != UCS_OK) ThrowStatus(env, st, std::string(call) + ": ucp_ep_rkey_unpack (are these a peer's ucxRkeyPack bytes?)");
  auto* k = new Rkey();
  k->ep = ep;
  k->h = h;
  ep->rkeys.push_back(k);
  return WrapHandle(env, k);
}

Napi::Value RkeyDestroy(const Napi::CallbackInfo& info) {
  Rkey* k = Unwrap<Rkey>(info, 0, "ucxRkeyDestroy");
  auto& keys = k->ep->rkeys;
  keys.erase(std::remove(keys.begin(), keys.end(), k), keys.end());
  api.rkey_destroy(k->h);
  k->ReleaseNative();
  return info.Env().Undefined();
}

// The remote address (argument `index`) and the remote key (`index + 1`), which must be one
// unpacked on this endpoint.
Rkey* GetRemote(const Napi::CallbackInfo& info, size_t index, const char* call, Endpoint* ep, uint64_t* address) {
  *address = static_cast<uint64_t>(GetInteger(info, index, call, "remoteAddr", 0, kMaxSafeInteger));
  Rkey* k = Unwrap<Rkey>(info, index + 1, call);
  if (k->ep != ep) {
    ThrowRangeError(info.Env(), std::string(call) + ": the remote key was unpacked on another endpoint (UCX keys are per endpoint)");
  }
  return k;
}

void OnDone(void* request, ucs_status_t status, void* userData) { CompleteOp(request, status, userData, 0); }

ucp_request_param_t Param(Op* op) {
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = OnDone;
  p.user_data = op;
  return p;
}

template <bool kPut>
Napi::Value PutGet(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = kPut ? "ucxPut" : "ucxGet";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  Bytes local = GetRange(info, 1, call, kPut ? "src" : "dest");
  uint64_t remote = 0;
  Rkey* k = GetRemote(info, 4, call, ep, &remote);
  int32_t token = GetToken(info, 6, call);
  Worker* w = ep->worker;
  if (w->finished != nullptr) ReclaimOps(env, w);
  Op* op = TakeOp(w, token, kPut ? kCqPut : kCqGet);
  ucp_request_param_t p = Param(op);
  ucs_status_ptr_t ret = kPut ? api.put_nbx(ep->h, local.data, local.length, remote, k->h, &p)
                              : api.get_nbx(ep->h, local.data, local.length, remote, k->h, &p);
  return Napi::Number::New(env, Submitted(env, op, ret, info[1], Napi::Value()));
}

Napi::Value Atomic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxAtomic";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  auto op = static_cast<ucp_atomic_op_t>(GetInteger(info, 1, call, "op", 0, UCP_ATOMIC_OP_LAST - 1));
  int64_t size = GetInteger(info, 2, call, "size", 4, 8);
  if (size != 4 && size != 8) ThrowRangeError(env, std::string(call) + ": size must be 4 or 8, got " + std::to_string(size));
  bool cswap = op == UCP_ATOMIC_OP_CSWAP;
  Bytes operands = GetBytes(info, 3, call, "operands");
  auto opOff = static_cast<size_t>(GetInteger(info, 4, call, "operandOffset", 0, kMaxSafeInteger));
  size_t need = static_cast<size_t>(size) * (cswap ? 2 : 1);
  if (opOff + need > operands.length) {
    ThrowRangeError(env, std::string(call) + ": operands needs " + std::to_string(need) + " bytes at offset " +
                             std::to_string(opOff) + (cswap ? " (compare, then swap value)" : "") + ", it has " +
                             std::to_string(operands.length));
  }
  bool fetch = !info[5].IsNull() && !info[5].IsUndefined();
  uint8_t* result = nullptr;
  if (fetch) {
    Bytes r = GetBytes(info, 5, call, "result");
    auto resOff = static_cast<size_t>(GetInteger(info, 6, call, "resultOffset", 0, kMaxSafeInteger));
    if (resOff + size > r.length) {
      ThrowRangeError(env, std::string(call) + ": result needs " + std::to_string(size) + " bytes at offset " +
                               std::to_string(resOff) + ", it has " + std::to_string(r.length));
    }
    result = r.data + resOff;
  } else if (op == UCP_ATOMIC_OP_SWAP || cswap) {
    ThrowTypeError(env, std::string(call) + ": swap and compare-and-swap fetch: result must be a buffer");
  }
  uint8_t* operand = operands.data + opOff;
  if ((reinterpret_cast<uintptr_t>(operand) | reinterpret_cast<uintptr_t>(result)) % size != 0) {
    ThrowRangeError(env, std::string(call) + ": operands and result must be " + std::to_string(size) + "-byte aligned");
  }
  uint64_t remote = 0;
  Rkey* k = GetRemote(info, 7, call, ep, &remote);
  if (remote % size != 0) ThrowRangeError(env, std::string(call) + ": remoteAddr must be " + std::to_string(size) + "-byte aligned");
  int32_t token = GetToken(info, 9, call);
  // UCX's compare-and-swap takes the new value in the reply buffer and overwrites it with the old.
  if (cswap) memcpy(result, operand + size, size);
  Worker* w = ep->worker;
  if (w->finished != nullptr) ReclaimOps(env, w);
  Op* o = TakeOp(w, token, kCqAtomic);
  // UCX may read the operand after the call returns (a queued atomic): a copy in the Op, so the
  // caller may reuse its buffer at once (posted atomics need no buffer of their own).
  memcpy(o->header, operand, static_cast<size_t>(size));
  operand = o->header;
  ucp_request_param_t p = Param(o);
  p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
  p.datatype = ucp_dt_make_contig(static_cast<size_t>(size));
  if (fetch) {
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.reply_buffer = result;
  }
  ucs_status_ptr_t ret = api.atomic_op_nbx(ep->h, op, operand, 1, remote, k->h, &p);
  return Napi::Number::New(env, Submitted(env, o, ret, fetch ? info[5] : Napi::Value(), Napi::Value()));
}

Napi::Value EpFlush(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Endpoint* ep = Unwrap<Endpoint>(info, 0, "ucxEpFlush");
  int32_t token = GetToken(info, 1, "ucxEpFlush");
  Worker* w = ep->worker;
  if (w->finished != nullptr) ReclaimOps(env, w);
  Op* op = TakeOp(w, token, kCqFlush);
  ucp_request_param_t p = Param(op);
  return Napi::Number::New(env, Submitted(env, op, api.ep_flush_nbx(ep->h, &p), Napi::Value(), Napi::Value()));
}

Napi::Value WorkerFlush(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Worker* w = Unwrap<Worker>(info, 0, "ucxWorkerFlush");
  int32_t token = GetToken(info, 1, "ucxWorkerFlush");
  if (w->finished != nullptr) ReclaimOps(env, w);
  Op* op = TakeOp(w, token, kCqFlush);
  ucp_request_param_t p = Param(op);
  return Napi::Number::New(env, Submitted(env, op, api.worker_flush_nbx(w->h, &p), Napi::Value(), Napi::Value()));
}

Napi::Value Fence(const Napi::CallbackInfo& info) {
  Worker* w = Unwrap<Worker>(info, 0, "ucxFence");
  ucs_status_t st = api.worker_fence(w->h);
  if (st != UCS_OK) ThrowStatus(info.Env(), st, "ucxFence: ucp_worker_fence");
  return info.Env().Undefined();
}

}  // namespace

void RegisterRmaExports(Napi::Env env, Napi::Object exports) {
  exports.Set("ucxMemMap", Napi::Function::New(env, Locked<MemMap>, "ucxMemMap"));
  exports.Set("ucxMemAddress", Napi::Function::New(env, Locked<MemAddress>, "ucxMemAddress"));
  exports.Set("ucxMemUnmap", Napi::Function::New(env, Locked<MemUnmap>, "ucxMemUnmap"));
  exports.Set("ucxRkeyPack", Napi::Function::New(env, Locked<RkeyPack>, "ucxRkeyPack"));
  exports.Set("ucxRkeyUnpack", Napi::Function::New(env, Locked<RkeyUnpack>, "ucxRkeyUnpack"));
  exports.Set("ucxRkeyDestroy", Napi::Function::New(env, Locked<RkeyDestroy>, "ucxRkeyDestroy"));
  exports.Set("ucxPut", Napi::Function::New(env, Locked<PutGet<true>>, "ucxPut"));
  exports.Set("ucxGet", Napi::Function::New(env, Locked<PutGet<false>>, "ucxGet"));
  exports.Set("ucxAtomic", Napi::Function::New(env, Locked<Atomic>, "ucxAtomic"));
  exports.Set("ucxEpFlush", Napi::Function::New(env, Locked<EpFlush>, "ucxEpFlush"));
  exports.Set("ucxWorkerFlush", Napi::Function::New(env, Locked<WorkerFlush>, "ucxWorkerFlush"));
  exports.Set("ucxFence", Napi::Function::New(env, Locked<Fence>, "ucxFence"));
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
