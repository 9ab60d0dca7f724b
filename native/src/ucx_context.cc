// UCX lifecycle for JavaScript: loading, contexts, workers (with their rings), endpoints, and
// teardown, including the environment's own at exit.
//
//   ucxProbe() -> {available, reason, version, library}
//   ucxLoad(path?) -> version
//   ucxContextCreate({features, name?, estimatedEndpoints?}) -> context
//   ucxContextDestroy(context)
//   ucxWorkerCreate(context, {inboxBytes?, completionSlots?, inlineMax?})
//       -> {worker, control, completions, inbox, eventFd, maxHeader}
//   ucxWorkerDestroy(worker)
//   ucxWorkerAddress(worker) -> Uint8Array
//   ucxEpCreate(worker, address, userId) -> endpoint
//   ucxEpClose(endpoint, force, token) -> 0 | 1 | -status
//   ucxEpStatus(endpoint) -> 0 | -status
#if TSMPI_HAVE_UCX

#include <algorithm>
#include <cmath>

#include "args.h"
#include "errors.h"
#include "ucx_objects.h"

namespace tsmpi {
namespace ucx {

// ucx_am.cc: the active-message handler that fills the inbox.
ucs_status_t OnAmMessage(void* arg, const void* header, size_t headerLength, void* data, size_t length,
                         const ucp_am_recv_param_t* param);
// ucx_rma.cc
void UnmapMem(Napi::Env env, Mem* m);

// The contexts of one environment, closed by its teardown if JavaScript did not close them.
struct Registry {
  std::vector<Context*> contexts;
};

namespace {

constexpr int64_t kTeardownWaitNs = 1000000000;  // how long a teardown waits for UCX to finish closes
constexpr uint32_t kDefaultInboxBytes = 1u << 20;
constexpr uint32_t kDefaultCompletionSlots = 4096;
constexpr uint32_t kDefaultInlineMax = 8192;

bool IsPowerOfTwo(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

Registry* GetRegistry(const Napi::CallbackInfo& info) { return static_cast<Registry*>(info.Data()); }

uint32_t OptionU32(const Napi::CallbackInfo& info, Napi::Object options, const char* call, const char* name,
                   double min, double max, uint32_t fallback) {
  Napi::Value v = options.Get(name);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) ThrowTypeError(info.Env(), std::string(call) + ": options." + name + " must be a number, got " + DescribeValue(v));
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= min && d <= max) || d != std::floor(d)) {
    ThrowRangeError(info.Env(), std::string(call) + ": options." + name + " must be an integer in [" + FormatNumber(min) +
                                    ", " + FormatNumber(max) + "], got " + FormatNumber(d));
  }
  return static_cast<uint32_t>(d);
}

Napi::Object GetOptions(const Napi::CallbackInfo& info, size_t index, const char* call) {
  if (info[index].IsUndefined()) return Napi::Object::New(info.Env());
  if (!info[index].IsObject()) ThrowTypeError(info.Env(), std::string(call) + ": options must be an object, got " + DescribeValue(info[index]));
  return info[index].As<Napi::Object>();
}

void OnEpError(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* ep = static_cast<Endpoint*>(arg);
  if (ep->failed != UCS_OK) return;
  ep->failed = status;
  Worker* w = ep->worker;
  w->epFailures++;
  w->control[kCtlEpFailures] = static_cast<int32_t>(w->epFailures);
  if (!ep->closing) w->cq.Put(ep->userId, status, kCqEpFailed, 0);
}

void DestroyRkeys(Endpoint* ep) {
  for (Rkey* k : ep->rkeys) {
    api.rkey_destroy(k->h);
    k->ReleaseNative();
  }
  ep->rkeys.clear();
}

// Progresses the worker until `done` or the teardown deadline.
template <typename Done>
void ProgressUntil(Worker* w, Done done) {
  int64_t deadline = MonotonicNowNs() + kTeardownWaitNs;
  while (!done() && MonotonicNowNs() < deadline) api.worker_progress(w->h);
}

// ---------------------------------------------------------------- exports

Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string why = Load("");
  Napi::Object r = Napi::Object::New(env);
  r.Set("available", Napi::Boolean::New(env, why.empty()));
  r.Set("reason", Napi::String::New(env, why));
  r.Set("version", Napi::String::New(env, VersionString()));
  r.Set("library", Napi::String::New(env, LoadedPath()));
  return r;
}

Napi::Value LoadExport(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = info[0].IsUndefined() ? std::string() : GetString(info, 0, "ucxLoad", "path");
  std::string why = Load(path);
  if (!why.empty()) ThrowCodedError(env, "ENOSYS", "ucxLoad: " + why);
  return Napi::String::New(env, VersionString());
}

Napi::Value ContextCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxContextCreate";
  RequireLoaded(env, call);
  Napi::Object options = GetOptions(info, 0, call);
  constexpr uint64_t known = UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                             UCP_FEATURE_WAKEUP | UCP_FEATURE_AM;
  uint32_t features = OptionU32(info, options, call, "features", 1, static_cast<double>(known), UCP_FEATURE_AM);
  if ((features & ~known) != 0) {
    ThrowRangeError(env, std::string(call) + ": options.features has unknown bits 0x" +
                             [&] { char b[16]; snprintf(b, sizeof b, "%x", features & ~static_cast<uint32_t>(known)); return std::string(b); }() +
                             " (UCX_FEATURE_TAG | RMA | AMO32 | AMO64 | WAKEUP | AM only)");
  }
  uint32_t eps = OptionU32(info, options, call, "estimatedEndpoints", 1, 1 << 24, 1);
  Napi::Value nameValue = options.Get("name");
  std::string name = nameValue.IsString() ? nameValue.As<Napi::String>().Utf8Value() : "tsmpi";

  ucp_config_t* config = nullptr;
  ucs_status_t st = api.config_read(nullptr, nullptr, &config);  // UCX_* variables of the environment
  if (st != UCS_OK) ThrowStatus(env, st, std::string(call) + ": ucp_config_read (check the UCX_* environment variables)");
  ucp_params_t params = {};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
  params.features = features;
  params.mt_workers_shared = 0;
  params.estimated_num_eps = eps;
  params.name = name.c_str();
  ucp_context_h h = nullptr;
  st = api.init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &h);
  api.config_release(config);
  if (st != UCS_OK) ThrowStatus(env, st, std::string(call) + ": ucp_init (features 0x" + std::to_string(features) + ")");
  auto* c = new Context();
  c->h = h;
  c->features = features;
  GetRegistry(info)->contexts.push_back(c);
  c->registry = GetRegistry(info);
  return WrapHandle(env, c);
}

Napi::Value ContextDestroy(const Napi::CallbackInfo& info) {
  DestroyContext(info.Env(), Unwrap<Context>(info, 0, "ucxContextDestroy"));
  return info.Env().Undefined();
}

Napi::Value WorkerCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxWorkerCreate";
  Context* c = Unwrap<Context>(info, 0, call);
  Napi::Object options = GetOptions(info, 1, call);
  uint32_t inboxBytes = OptionU32(info, options, call, "inboxBytes", 4096, 1 << 30, kDefaultInboxBytes);
  uint32_t slots = OptionU32(info, options, call, "completionSlots", 16, 1 << 24, kDefaultCompletionSlots);
  if (!IsPowerOfTwo(inboxBytes) || !IsPowerOfTwo(slots)) {
    ThrowRangeError(env, std::string(call) + ": options.inboxBytes (" + std::to_string(inboxBytes) +
                             ") and options.completionSlots (" + std::to_string(slots) + ") must be powers of two");
  }
  uint32_t inlineMaxLimit = inboxBytes / 2 - kRecordHeaderBytes - kMaxHeader;
  uint32_t inlineMax = OptionU32(info, options, call, "inlineMax", 0, inlineMaxLimit, std::min(kDefaultInlineMax, inlineMaxLimit));
  uint32_t heldMin = OptionU32(info, options, call, "heldMin", 0, 4294967295.0, 4294967295u);

  ucp_worker_params_t params = {};
  params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  params.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // the JS thread and the relay, under gUcxLock
  ucp_worker_h h = nullptr;
  ucs_status_t st = api.worker_create(c->h, &params, &h);
  if (st != UCS_OK) ThrowStatus(env, st, std::string(call) + ": ucp_worker_create");

  auto* w = new Worker();
  w->context = c;
  w->h = h;
  w->inlineMax = inlineMax;
  w->heldMin = heldMin;
  ucp_worker_attr_t attr = {};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  size_t maxHeader = kMaxHeader;
  if (api.worker_query(h, &attr) == UCS_OK) maxHeader = std::min<size_t>(kMaxHeader, attr.max_am_header);
  w->maxHeader = static_cast<uint32_t>(maxHeader);
  if (c->features & UCP_FEATURE_WAKEUP) {
    st = api.worker_get_efd(h, &w->efd);
    if (st != UCS_OK) {
      api.worker_destroy(h);
      delete w;
      ThrowStatus(env, st, std::string(call) + ": ucp_worker_get_efd");
    }
  }
  if (c->features & UCP_FEATURE_AM) {
    ucp_am_handler_param_t am = {};
    am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    am.id = kAmId;
    // Persistent data: eager data UCX lets us keep is held in place (no copy of ours) until
    // it is received or viewed and released (ucx_am.cc).
    am.flags = UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA;
    am.cb = OnAmMessage;
    am.arg = w;
    st = api.worker_set_am_recv_handler(h, &am);
    if (st == UCS_OK) {
      am.id = kBeatId;
      am.cb = OnBeat;
      st = api.worker_set_am_recv_handler(h, &am);
    }
    if (st != UCS_OK) {
      api.worker_destroy(h);
      delete w;
      ThrowStatus(env, st, std::string(call) + ": ucp_worker_set_am_recv_handler");
    }
  }

  // The rings: JavaScript-owned memory that the worker holds until it is destroyed.
  Napi::ArrayBuffer ringBuffer = Napi::ArrayBuffer::New(env, (kControlWords + static_cast<size_t>(slots) * kCqEntryWords) * 4);
  Napi::ArrayBuffer inboxBuffer = Napi::ArrayBuffer::New(env, inboxBytes);
  auto* words = static_cast<int32_t*>(ringBuffer.Data());
  std::fill(words, words + kControlWords + static_cast<size_t>(slots) * kCqEntryWords, 0);
  w->control = words;
  w->cq.Attach(words + kControlWords, slots, words);
  w->inbox.Attach(static_cast<uint8_t*>(inboxBuffer.Data()), inboxBytes, words);
  napi_create_reference(env, ringBuffer, 1, &w->keepRings[0]);
  napi_create_reference(env, inboxBuffer, 1, &w->keepRings[1]);
  c->workers.push_back(w);

  Napi::Object r = Napi::Object::New(env);
  r.Set("worker", WrapHandle(env, w));
  r.Set("control", Napi::Int32Array::New(env, kControlWords, ringBuffer, 0));
  r.Set("completions", Napi::Int32Array::New(env, static_cast<size_t>(slots) * kCqEntryWords, ringBuffer, kControlWords * 4));
  r.Set("inbox", Napi::Uint8Array::New(env, inboxBytes, inboxBuffer, 0));
  r.Set("eventFd", Napi::Number::New(env, w->efd));
  r.Set("maxHeader", Napi::Number::New(env, w->maxHeader));
  r.Set("inlineMax", Napi::Number::New(env, inlineMax));
  return r;
}

Napi::Value WorkerDestroy(const Napi::CallbackInfo& info) {
  DestroyWorker(info.Env(), Unwrap<Worker>(info, 0, "ucxWorkerDestroy"));
  return info.Env().Undefined();
}

Napi::Value WorkerAddress(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Worker* w = Unwrap<Worker>(info, 0, "ucxWorkerAddress");
  ucp_address_t* address = nullptr;
  size_t length = 0;
  ucs_status_t st = api.worker_get_address(w->h, &address, &length);
  if (st != UCS_OK) ThrowStatus(env, st, "ucxWorkerAddress: ucp_worker_get_address");
  Napi::Uint8Array bytes = Napi::Uint8Array::New(env, length);
  memcpy(bytes.Data(), address, length);
  api.worker_release_address(w->h, address);
  return bytes;
}

Napi::Value EpCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxEpCreate";
  Worker* w = Unwrap<Worker>(info, 0, call);
  Bytes address = GetBytes(info, 1, call, "address");
  int32_t userId = static_cast<int32_t>(GetInteger(info, 2, call, "userId", 0, 2147483647.0));
  if (address.length == 0) ThrowRangeError(env, std::string(call) + ": address is empty (a peer's ucxWorkerAddress bytes expected)");
  auto* ep = new Endpoint();
  ep->worker = w;
  ep->userId = userId;
  ucp_ep_params_t params = {};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data);
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = OnEpError;
  params.err_handler.arg = ep;
  ucs_status_t st = api.ep_create(w->h, &params, &ep->h);
  if (st != UCS_OK) {
    delete ep;
    ThrowStatus(env, st, std::string(call) + ": ucp_ep_create to peer " + std::to_string(userId) +
                             " (are these the bytes of its ucxWorkerAddress, and does UCX_TLS name a transport both reach?)");
  }
  w->eps.push_back(ep);
  return WrapHandle(env, ep);
}

Napi::Value EpClose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = "ucxEpClose";
  Endpoint* ep = Unwrap<Endpoint>(info, 0, call);
  bool force = info[1].ToBoolean();
  int32_t token = GetToken(info, 2, call);
  Worker* w = ep->worker;
  ReclaimOps(env, w);
  DestroyRkeys(ep);
  ep->open = false;
  ep->closing = true;
  Op* op = TakeOp(w, token, kCqClose);
  op->closing = ep;
  ucp_request_param_t p = {};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  p.cb.send = OnSendDone;
  p.user_data = op;
  p.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  ucs_status_ptr_t ret = api.ep_close_nbx(ep->h, &p);
  if (ret == nullptr || UCS_PTR_IS_ERR(ret)) {
    // Done at once, or failed: either way UCX has released the endpoint.
    ReturnOp(op);
    w->eps.erase(std::remove(w->eps.begin(), w->eps.end(), ep), w->eps.end());
    ep->ReleaseNative();
    return Napi::Number::New(env, ret == nullptr ? 0 : static_cast<int32_t>(UCS_PTR_STATUS(ret)));
  }
  w->pendingOps++;
  return Napi::Number::New(env, 1);
}

Napi::Value EpStatus(const Napi::CallbackInfo& info) {
  Endpoint* ep = Unwrap<Endpoint>(info, 0, "ucxEpStatus");
  return Napi::Number::New(info.Env(), static_cast<int32_t>(ep->failed));
}

void Teardown(void* arg) {
  auto* registry = static_cast<Registry*>(arg);
  std::vector<Context*> open = registry->contexts;
  for (Context* c : open) DestroyContext(nullptr, c);
  delete registry;
}

}  // namespace

// ---------------------------------------------------------------- teardown

void CloseEndpointNow(Endpoint* ep) {
  Worker* w = ep->worker;
  DestroyRkeys(ep);
  ep->open = false;
  ep->closing = true;
  ucp_request_param_t p = {};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = UCP_EP_CLOSE_FLAG_FORCE;
  ucs_status_ptr_t ret = api.ep_close_nbx(ep->h, &p);
  if (UCS_PTR_IS_PTR(ret)) {
    ProgressUntil(w, [&] { return api.request_check_status(ret) != UCS_INPROGRESS; });
    api.request_free(ret);
  }
  w->eps.erase(std::remove(w->eps.begin(), w->eps.end(), ep), w->eps.end());
  ep->ReleaseNative();
}

void DestroyWorker(Napi::Env env, Worker* w) {
  w->open = false;
  StopRelay(env, w);
  std::vector<Endpoint*> eps = w->eps;
  for (Endpoint* ep : eps) {
    if (!ep->closing) CloseEndpointNow(ep);
  }
  // Closes JavaScript started (ucxEpClose) finish through their callbacks.
  ProgressUntil(w, [&] {
    ReclaimOps(env, w);
    return w->eps.empty();
  });
  ReleaseDescs(w);
  api.worker_destroy(w->h);  // UCX cancels what is still pending; the callbacks see the rings alive
  ReclaimOps(env, w);
  for (Endpoint* ep : std::vector<Endpoint*>(w->eps)) ep->ReleaseNative();
  w->eps.clear();
  bool refs = env != nullptr && !w->tearingDown;
  for (Op* op : w->allOps) {
    for (napi_ref ref : op->keep) {
      if (ref != nullptr && refs) napi_delete_reference(env, ref);
    }
    delete op;
  }
  w->allOps.clear();
  w->freeOps = nullptr;
  for (napi_ref& ref : w->keepRings) {
    if (ref != nullptr && refs) napi_delete_reference(env, ref);
    ref = nullptr;
  }
  auto& workers = w->context->workers;
  workers.erase(std::remove(workers.begin(), workers.end(), w), workers.end());
  w->ReleaseNative();
}

void DestroyContext(Napi::Env env, Context* c) {
  c->open = false;
  for (Worker* w : std::vector<Worker*>(c->workers)) {
    if (env == nullptr) w->tearingDown = true;
    DestroyWorker(env, w);
  }
  for (Mem* m : std::vector<Mem*>(c->mems)) UnmapMem(env, m);
  api.cleanup(c->h);
  auto& list = c->registry->contexts;
  list.erase(std::remove(list.begin(), list.end(), c), list.end());
  c->ReleaseNative();
}

void RegisterContextExports(Napi::Env env, Napi::Object exports) {
  auto* registry = new Registry();
  if (napi_add_env_cleanup_hook(env, Teardown, registry) != napi_ok) {
    delete registry;
    NAPI_THROW_VOID(Napi::Error::New(env, "tsmpi: cannot register the UCX teardown hook"));
  }
  exports.Set("ucxProbe", Napi::Function::New(env, Probe, "ucxProbe"));
  exports.Set("ucxLoad", Napi::Function::New(env, LoadExport, "ucxLoad"));
  exports.Set("ucxContextCreate", Napi::Function::New(env, Locked<ContextCreate>, "ucxContextCreate", registry));
  exports.Set("ucxContextDestroy", Napi::Function::New(env, Locked<ContextDestroy>, "ucxContextDestroy"));
  exports.Set("ucxWorkerCreate", Napi::Function::New(env, Locked<WorkerCreate>, "ucxWorkerCreate"));
  exports.Set("ucxWorkerDestroy", Napi::Function::New(env, Locked<WorkerDestroy>, "ucxWorkerDestroy"));
  exports.Set("ucxWorkerAddress", Napi::Function::New(env, Locked<WorkerAddress>, "ucxWorkerAddress"));
  exports.Set("ucxEpCreate", Napi::Function::New(env, Locked<EpCreate>, "ucxEpCreate"));
  exports.Set("ucxEpClose", Napi::Function::New(env, Locked<EpClose>, "ucxEpClose"));
  exports.Set("ucxEpStatus", Napi::Function::New(env, Locked<EpStatus>, "ucxEpStatus"));
}

}  // namespace ucx
}  // namespace tsmpi

#endif  // TSMPI_HAVE_UCX
