// Handles and pending operations of the UCX binding: see ucx_objects.h.
#if TSMPI_HAVE_UCX

#include "ucx_objects.h"

#include <algorithm>

#include "args.h"
#include "errors.h"

namespace tsmpi {
namespace ucx {

namespace {

// Marks the binding's Externals, so that another module's External (a SISCI handle) is refused
// instead of being read as one of ours.
constexpr napi_type_tag kHandleTag = {0x7473'6d70'6975'6378ULL, 0x6861'6e64'6c65'0001ULL};

void FinalizeHandle(Napi::Env, Handle* h) {
  h->jsHeld = false;
  if (!h->native) delete h;
}

}  // namespace

Napi::Value WrapHandle(Napi::Env env, Handle* handle) {
  auto external = Napi::External<Handle>::New(env, handle, FinalizeHandle);
  handle->jsHeld = true;
  external.TypeTag(&kHandleTag);
  return external;
}

Handle* UnwrapHandle(const Napi::CallbackInfo& info, size_t index, const char* call, Kind kind, const char* what) {
  Napi::Env env = info.Env();
  Napi::Value value = info[index];
  if (!value.IsExternal() || !value.As<Napi::External<Handle>>().CheckTypeTag(&kHandleTag)) {
    ThrowTypeError(env, std::string(call) + ": a UCX " + what + " handle expected, got " + DescribeValue(value));
  }
  Handle* h = value.As<Napi::External<Handle>>().Data();
  if (h->kind != kind) {
    ThrowTypeError(env, std::string(call) + ": a UCX " + what + " handle expected, got another kind of UCX handle");
  }
  if (!h->open) {
    ThrowCodedError(env, "EBADF", std::string(call) + ": the UCX " + what + " is closed");
  }
  return h;
}

int32_t GetToken(const Napi::CallbackInfo& info, size_t index, const char* call) {
  return static_cast<int32_t>(GetInteger(info, index, call, "token", 0, 2147483647.0));
}

Op* TakeOp(Worker* w, int32_t token, int32_t kind) {
  Op* op = w->freeOps;
  if (op != nullptr) {
    w->freeOps = op->next;
  } else {
    op = new Op();
    w->allOps.push_back(op);
  }
  op->worker = w;
  op->next = nullptr;
  op->token = token;
  op->kind = kind;
  op->request = nullptr;
  op->closing = nullptr;
  return op;
}

void ReturnOp(Op* op) {
  Worker* w = op->worker;
  op->next = w->freeOps;
  w->freeOps = op;
}

void KeepAlive(Napi::Env env, Op* op, Napi::Value a, Napi::Value b) {
  // Only objects can be referenced (Node-API 8); a number or undefined needs no keeping.
  if (!a.IsEmpty() && a.IsObject()) napi_create_reference(env, a, 1, &op->keep[0]);
  if (!b.IsEmpty() && b.IsObject()) napi_create_reference(env, b, 1, &op->keep[1]);
}

void CompleteOp(void* request, ucs_status_t status, void* userData, int32_t value) {
  auto* op = static_cast<Op*>(userData);
  Worker* w = op->worker;
  w->pendingOps--;
  if (op->kind != kCqClose || op->token >= 0) w->cq.Put(op->token, status, op->kind, value);
  // Freed after the callback has returned (ReclaimOps): UCX marks the request completed around
  // the callback, and only a completed request goes straight back to its pool.
  op->request = request;
  op->next = w->finished;
  w->finished = op;
}

void OnSendDone(void* request, ucs_status_t status, void* userData) { CompleteOp(request, status, userData, 0); }

void ReclaimOps(Napi::Env env, Worker* w) {
  while (w->finished != nullptr) {
    Op* op = w->finished;
    w->finished = op->next;
    if (op->request != nullptr) api.request_free(op->request);
    for (napi_ref& ref : op->keep) {
      if (ref != nullptr && !w->tearingDown && env != nullptr) napi_delete_reference(env, ref);
      ref = nullptr;
    }
    if (op->closing != nullptr) {
      Endpoint* ep = op->closing;
      auto& eps = w->eps;
      eps.erase(std::remove(eps.begin(), eps.end(), ep), eps.end());
      ep->ReleaseNative();
    }
    ReturnOp(op);
  }
}

int32_t Submitted(Napi::Env env, Op* op, ucs_status_ptr_t ret, Napi::Value keepA, Napi::Value keepB) {
  if (ret == nullptr) {
    ReturnOp(op);
    return 0;
  }
  if (UCS_PTR_IS_ERR(ret)) {
    ReturnOp(op);
    return static_cast<int32_t>(UCS_PTR_STATUS(ret));
  }
  op->worker->pendingOps++;
  KeepAlive(env, op, keepA, keepB);
  return 1;
}

Bytes GetRange(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name) {
  Bytes whole = GetBytes(info, index, call, name);
  double off = static_cast<double>(GetInteger(info, index + 1, call, "offset", 0, kMaxSafeInteger));
  double len = static_cast<double>(GetInteger(info, index + 2, call, "length", 0, kMaxSafeInteger));
  if (off + len > static_cast<double>(whole.length)) {
    ThrowRangeError(info.Env(), std::string(call) + ": " + name + " bytes [" + FormatNumber(off) + ", " +
                                    FormatNumber(off + len) + ") lie outside its " +
                                    std::to_string(whole.length) + " bytes");
  }
  return {whole.data + static_cast<size_t>(off), static_cast<size_t>(len)};
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
