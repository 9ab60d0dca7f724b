// The addon's bridge to a SISCI library, loaded with dlopen: tsmpi's emulation (sisci_emu.so,
// built beside this addon) or Dolphin's libsisci (TSMPI_SISCI_LIB names it). Every function
// used is resolved once by name; a missing one fails sciLoad with its name.
//
// Handles travel to JavaScript as Externals; src/sisci/ wraps them in typed objects. A failed
// SISCI call throws Error{code: 'SCI_ERR_...', sciError: number} whose message names the call
// and its arguments. Mapped memory becomes a SharedArrayBuffer over the mapping (no copy); the
// segment stays mapped until its map is unmapped, and the library refuses to disconnect or
// remove a segment that is still mapped (SCI_ERR_BUSY), so a view is valid until its own
// unmap.
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <string>

#include "../sisci/include/sisci_api.h"
#include "args.h"
#include "errors.h"
#include "exports.h"
#include "futex.h"
#include "sab.h"

namespace tsmpi {

namespace {

struct Api {
  void* handle = nullptr;
  std::string path;
  decltype(&SCIInitialize) Initialize;
  decltype(&SCIOpen) Open;
  decltype(&SCIClose) Close;
  decltype(&SCICreateSegment) CreateSegment;
  decltype(&SCIPrepareSegment) PrepareSegment;
  decltype(&SCISetSegmentAvailable) SetSegmentAvailable;
  decltype(&SCISetSegmentUnavailable) SetSegmentUnavailable;
  decltype(&SCIRemoveSegment) RemoveSegment;
  decltype(&SCIConnectSegment) ConnectSegment;
  decltype(&SCIDisconnectSegment) DisconnectSegment;
  decltype(&SCIGetRemoteSegmentSize) GetRemoteSegmentSize;
  decltype(&SCIMapRemoteSegment) MapRemoteSegment;
  decltype(&SCIMapLocalSegment) MapLocalSegment;
  decltype(&SCIUnmapSegment) UnmapSegment;
  decltype(&SCICreateMapSequence) CreateMapSequence;
  decltype(&SCIRemoveSequence) RemoveSequence;
  decltype(&SCIStartSequence) StartSequence;
  decltype(&SCICheckSequence) CheckSequence;
  decltype(&SCIStoreBarrier) StoreBarrier;
  decltype(&SCIMemCpy) MemCpy;
  decltype(&SCICreateInterrupt) CreateInterrupt;
  decltype(&SCIRemoveInterrupt) RemoveInterrupt;
  decltype(&SCIWaitForInterrupt) WaitForInterrupt;
  decltype(&SCIConnectInterrupt) ConnectInterrupt;
  decltype(&SCIDisconnectInterrupt) DisconnectInterrupt;
  decltype(&SCITriggerInterrupt) TriggerInterrupt;
  decltype(&SCICreateDMAQueue) CreateDMAQueue;
  decltype(&SCIRemoveDMAQueue) RemoveDMAQueue;
  decltype(&SCIEnqueueDMATransfer) EnqueueDMATransfer;
  decltype(&SCIPostDMAQueue) PostDMAQueue;
  decltype(&SCIResetDMAQueue) ResetDMAQueue;
  decltype(&SCIDMAQueueState) DMAQueueState;
  decltype(&SCIWaitForDMAQueue) WaitForDMAQueue;
  decltype(&SCIProbeNode) ProbeNode;
  decltype(&SCIQuery) Query;
  decltype(&SCIEmuFaultCounters) EmuFaultCounters;  // emulation only: may be null
  const unsigned int* flagFixedIntno;
  const unsigned int* flagDmaRead;
  const unsigned int* flagUseCallback;
  const unsigned int* qAdapter;
  const unsigned int* qNodeId;
};

Api api;

const char* ErrorName(sci_error_t e) {
  switch (e) {
#define NAME(x) \
  case x:       \
    return #x;
    NAME(SCI_ERR_OK) NAME(SCI_ERR_BUSY) NAME(SCI_ERR_FLAG_NOT_IMPLEMENTED) NAME(SCI_ERR_ILLEGAL_FLAG)
    NAME(SCI_ERR_NOSPC) NAME(SCI_ERR_API_NOSPC) NAME(SCI_ERR_HW_NOSPC) NAME(SCI_ERR_NOT_IMPLEMENTED)
    NAME(SCI_ERR_ILLEGAL_ADAPTERNO) NAME(SCI_ERR_NO_SUCH_ADAPTERNO) NAME(SCI_ERR_TIMEOUT) NAME(SCI_ERR_OUT_OF_RANGE)
    NAME(SCI_ERR_NO_SUCH_SEGMENT) NAME(SCI_ERR_ILLEGAL_NODEID) NAME(SCI_ERR_CONNECTION_REFUSED)
    NAME(SCI_ERR_SEGMENT_NOT_CONNECTED) NAME(SCI_ERR_SIZE_ALIGNMENT) NAME(SCI_ERR_OFFSET_ALIGNMENT)
    NAME(SCI_ERR_ILLEGAL_PARAMETER) NAME(SCI_ERR_MAX_ENTRIES) NAME(SCI_ERR_SEGMENT_NOT_PREPARED)
    NAME(SCI_ERR_ILLEGAL_ADDRESS) NAME(SCI_ERR_ILLEGAL_OPERATION) NAME(SCI_ERR_ILLEGAL_QUERY)
    NAME(SCI_ERR_SEGMENTID_USED) NAME(SCI_ERR_SYSTEM) NAME(SCI_ERR_CANCELLED) NAME(SCI_ERR_NOT_CONNECTED)
    NAME(SCI_ERR_NOT_AVAILABLE) NAME(SCI_ERR_INCONSISTENT_VERSIONS) NAME(SCI_ERR_COND_INT_RACE_PROBLEM)
    NAME(SCI_ERR_OVERFLOW) NAME(SCI_ERR_NOT_INITIALIZED) NAME(SCI_ERR_ACCESS) NAME(SCI_ERR_NO_SUCH_INTNO)
    NAME(SCI_ERR_NO_LINK_ACCESS) NAME(SCI_ERR_NO_REMOTE_LINK_ACCESS) NAME(SCI_ERR_TRANSFER_FAILED)
#undef NAME
  }
  return "SCI_ERR_UNKNOWN";
}

void Check(Napi::Env env, sci_error_t err, const std::string& what) {
  if (err == SCI_ERR_OK) return;
  Napi::Error e = Napi::Error::New(env, what + ": " + ErrorName(err));
  e.Set("code", Napi::String::New(env, ErrorName(err)));
  e.Set("sciError", Napi::Number::New(env, static_cast<double>(err)));
  throw e;
}

void RequireLoaded(Napi::Env env) {
  if (api.handle == nullptr) ThrowCodedError(env, "ENOSYS", "SISCI is not loaded (call sciLoad first)");
}

template <typename T>
Napi::Value Wrap(Napi::Env env, T* p) {
  return Napi::External<void>::New(env, static_cast<void*>(p));
}

template <typename T>
T* Unwrap(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (!info[i].IsExternal()) ThrowTypeError(info.Env(), std::string(what) + " handle expected");
  return static_cast<T*>(info[i].As<Napi::External<void>>().Data());
}

unsigned int U32(const Napi::CallbackInfo& info, size_t i, const char* call, const char* name) {
  return static_cast<unsigned int>(GetInteger(info, i, call, name, 0, 4294967295.0));
}

template <typename F>
bool Resolve(F& slot, const char* name, std::string& missing) {
  // Dolphin's sisci_api.h renames every public symbol with a macro: functions become
  // _SISCI_PUBLIC_FUNC_MT_<name> (thread-safe build) or _SISCI_PUBLIC_FUNC_ST_<name>, constants
  // _SISCI_PUBLIC_CONST_<name>. The emulation exports the plain names. Try all of them.
  const std::string plain = name;
  for (const std::string& candidate : {plain, "_SISCI_PUBLIC_FUNC_MT_" + plain, "_SISCI_PUBLIC_FUNC_ST_" + plain,
                                       "_SISCI_PUBLIC_CONST_" + plain}) {
    slot = reinterpret_cast<F>(dlsym(api.handle, candidate.c_str()));
    if (slot != nullptr) return true;
  }
  if (missing.empty()) missing = name;
  return false;
}

// The directory of this addon, where node-gyp put sisci_emu.so.
std::string AddonDirectory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&AddonDirectory), &info) == 0 || info.dli_fname == nullptr) return ".";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// sciLoad(path?) -> the path loaded (idempotent).
Napi::Value Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = info.Length() > 0 && info[0].IsString() ? info[0].As<Napi::String>().Utf8Value()
                                                            : AddonDirectory() + "/sisci_emu.so";
  if (api.handle != nullptr) {
    if (path != api.path) ThrowCodedError(env, "EBUSY", "SISCI already loaded from " + api.path);
    return Napi::String::New(env, api.path);
  }
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) ThrowCodedError(env, "ENOENT", std::string("cannot load SISCI library ") + path + ": " + dlerror());
  api.handle = h;
  std::string missing;
  Resolve(api.Initialize, "SCIInitialize", missing);
  Resolve(api.Open, "SCIOpen", missing);
  Resolve(api.Close, "SCIClose", missing);
  Resolve(api.CreateSegment, "SCICreateSegment", missing);
  Resolve(api.PrepareSegment, "SCIPrepareSegment", missing);
  Resolve(api.SetSegmentAvailable, "SCISetSegmentAvailable", missing);
  Resolve(api.SetSegmentUnavailable, "SCISetSegmentUnavailable", missing);
  Resolve(api.RemoveSegment, "SCIRemoveSegment", missing);
  Resolve(api.ConnectSegment, "SCIConnectSegment", missing);
  Resolve(api.DisconnectSegment, "SCIDisconnectSegment", missing);
  Resolve(api.GetRemoteSegmentSize, "SCIGetRemoteSegmentSize", missing);
  Resolve(api.MapRemoteSegment, "SCIMapRemoteSegment", missing);
  Resolve(api.MapLocalSegment, "SCIMapLocalSegment", missing);
  Resolve(api.UnmapSegment, "SCIUnmapSegment", missing);
  Resolve(api.CreateMapSequence, "SCICreateMapSequence", missing);
  Resolve(api.RemoveSequence, "SCIRemoveSequence", missing);
  Resolve(api.StartSequence, "SCIStartSequence", missing);
  Resolve(api.CheckSequence, "SCICheckSequence", missing);
  Resolve(api.StoreBarrier, "SCIStoreBarrier", missing);
  Resolve(api.MemCpy, "SCIMemCpy", missing);
  Resolve(api.CreateInterrupt, "SCICreateInterrupt", missing);
  Resolve(api.RemoveInterrupt, "SCIRemoveInterrupt", missing);
  Resolve(api.WaitForInterrupt, "SCIWaitForInterrupt", missing);
  Resolve(api.ConnectInterrupt, "SCIConnectInterrupt", missing);
  Resolve(api.DisconnectInterrupt, "SCIDisconnectInterrupt", missing);
  Resolve(api.TriggerInterrupt, "SCITriggerInterrupt", missing);
  Resolve(api.CreateDMAQueue, "SCICreateDMAQueue", missing);
  Resolve(api.RemoveDMAQueue, "SCIRemoveDMAQueue", missing);
  Resolve(api.EnqueueDMATransfer, "SCIEnqueueDMATransfer", missing);
  Resolve(api.PostDMAQueue, "SCIPostDMAQueue", missing);
  Resolve(api.ResetDMAQueue, "SCIResetDMAQueue", missing);
  Resolve(api.DMAQueueState, "SCIDMAQueueState", missing);
  Resolve(api.WaitForDMAQueue, "SCIWaitForDMAQueue", missing);
  Resolve(api.ProbeNode, "SCIProbeNode", missing);
  Resolve(api.Query, "SCIQuery", missing);
  Resolve(api.flagFixedIntno, "SCI_FLAG_FIXED_INTNO", missing);
  Resolve(api.flagDmaRead, "SCI_FLAG_DMA_READ", missing);
  Resolve(api.flagUseCallback, "SCI_FLAG_USE_CALLBACK", missing);
  Resolve(api.qAdapter, "SCI_Q_ADAPTER", missing);
  Resolve(api.qNodeId, "SCI_Q_ADAPTER_NODEID", missing);
  api.EmuFaultCounters = reinterpret_cast<decltype(&SCIEmuFaultCounters)>(dlsym(h, "SCIEmuFaultCounters"));
  if (!missing.empty()) {
    dlclose(h);
    api.handle = nullptr;
    ThrowCodedError(env, "ENOSYS", "SISCI library " + path + " has no symbol " + missing);
  }
  api.path = path;
  sci_error_t err;
  api.Initialize(0, &err);
  Check(env, err, "SCIInitialize");
  return Napi::String::New(env, path);
}

Napi::Value Open(const Napi::CallbackInfo& info) {
  RequireLoaded(info.Env());
  sci_desc_t sd;
  sci_error_t err;
  api.Open(&sd, 0, &err);
  Check(info.Env(), err, "SCIOpen");
  return Wrap(info.Env(), sd);
}

Napi::Value Close(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.Close(Unwrap<sci_desc>(info, 0, "descriptor"), 0, &err);
  Check(info.Env(), err, "SCIClose");
  return info.Env().Undefined();
}

Napi::Value NodeId(const Napi::CallbackInfo& info) {
  RequireLoaded(info.Env());
  unsigned int id = 0;
  sci_query_adapter_t q = {0, *api.qNodeId, &id};
  sci_error_t err;
  api.Query(*api.qAdapter, &q, 0, &err);
  Check(info.Env(), err, "SCIQuery(SCI_Q_ADAPTER_NODEID)");
  return Napi::Number::New(info.Env(), id);
}

Napi::Value ProbeNode(const Napi::CallbackInfo& info) {
  sci_error_t err;
  unsigned int node = U32(info, 1, "sciProbeNode", "nodeId");
  int alive = api.ProbeNode(Unwrap<sci_desc>(info, 0, "descriptor"), 0, node, 0, &err);
  Check(info.Env(), err, "SCIProbeNode(node " + std::to_string(node) + ")");
  return Napi::Boolean::New(info.Env(), alive != 0);
}

Napi::Value CreateSegment(const Napi::CallbackInfo& info) {
  unsigned int id = U32(info, 1, "sciCreateSegment", "segmentId");
  unsigned int size = U32(info, 2, "sciCreateSegment", "size");
  sci_local_segment_t seg;
  sci_error_t err;
  api.CreateSegment(Unwrap<sci_desc>(info, 0, "descriptor"), &seg, id, size, nullptr, nullptr, 0, &err);
  Check(info.Env(), err, "SCICreateSegment(segment " + std::to_string(id) + ", " + std::to_string(size) + " bytes)");
  sci_error_t e2;
  api.PrepareSegment(seg, 0, 0, &e2);
  Check(info.Env(), e2, "SCIPrepareSegment(segment " + std::to_string(id) + ")");
  return Wrap(info.Env(), seg);
}

Napi::Value SetAvailable(const Napi::CallbackInfo& info) {
  sci_error_t err;
  bool on = info[1].ToBoolean();
  auto* seg = Unwrap<sci_local_segment>(info, 0, "local segment");
  if (on) api.SetSegmentAvailable(seg, 0, 0, &err);
  else api.SetSegmentUnavailable(seg, 0, 0, &err);
  Check(info.Env(), err, on ? "SCISetSegmentAvailable" : "SCISetSegmentUnavailable");
  return info.Env().Undefined();
}

Napi::Value RemoveSegment(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.RemoveSegment(Unwrap<sci_local_segment>(info, 0, "local segment"), 0, &err);
  Check(info.Env(), err, "SCIRemoveSegment");
  return info.Env().Undefined();
}

Napi::Value ConnectSegment(const Napi::CallbackInfo& info) {
  unsigned int node = U32(info, 1, "sciConnectSegment", "nodeId");
  unsigned int id = U32(info, 2, "sciConnectSegment", "segmentId");
  unsigned int timeout = U32(info, 3, "sciConnectSegment", "timeoutMs");
  sci_remote_segment_t rs;
  sci_error_t err;
  api.ConnectSegment(Unwrap<sci_desc>(info, 0, "descriptor"), &rs, node, id, 0, nullptr, nullptr, timeout, 0, &err);
  Check(info.Env(), err, "SCIConnectSegment(node " + std::to_string(node) + ", segment " + std::to_string(id) + ")");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("handle", Wrap(info.Env(), rs));
  out.Set("size", Napi::Number::New(info.Env(), api.GetRemoteSegmentSize(rs)));
  return out;
}

Napi::Value DisconnectSegment(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.DisconnectSegment(Unwrap<sci_remote_segment>(info, 0, "remote segment"), 0, &err);
  Check(info.Env(), err, "SCIDisconnectSegment");
  return info.Env().Undefined();
}

void NoRelease(void*, size_t) {}

// sciMap(segment, remote: boolean, offset, size) -> { handle, memory: SharedArrayBuffer }
Napi::Value Map(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  bool remote = info[1].ToBoolean();
  unsigned int offset = U32(info, 2, "sciMap", "offset");
  unsigned int size = U32(info, 3, "sciMap", "size");
  sci_map_t map;
  sci_error_t err;
  void* p = remote ? const_cast<void*>(api.MapRemoteSegment(Unwrap<sci_remote_segment>(info, 0, "remote segment"), &map,
                                                             offset, size, nullptr, 0, &err))
                   : api.MapLocalSegment(Unwrap<sci_local_segment>(info, 0, "local segment"), &map, offset, size,
                                         nullptr, 0, &err);
  Check(env, err, std::string(remote ? "SCIMapRemoteSegment" : "SCIMapLocalSegment") + "(offset " +
                      std::to_string(offset) + ", " + std::to_string(size) + " bytes)");
  Napi::Object out = Napi::Object::New(env);
  out.Set("handle", Wrap(env, map));
  out.Set("memory", NewExternalSharedArrayBuffer(env, p, size, NoRelease));
  return out;
}

Napi::Value Unmap(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.UnmapSegment(Unwrap<sci_map>(info, 0, "map"), 0, &err);
  Check(info.Env(), err, "SCIUnmapSegment");
  return info.Env().Undefined();
}

Napi::Value CreateSequence(const Napi::CallbackInfo& info) {
  sci_sequence_t seq;
  sci_error_t err;
  api.CreateMapSequence(Unwrap<sci_map>(info, 0, "map"), &seq, 0, &err);
  Check(info.Env(), err, "SCICreateMapSequence");
  return Wrap(info.Env(), seq);
}

Napi::Value RemoveSequence(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.RemoveSequence(Unwrap<sci_sequence>(info, 0, "sequence"), 0, &err);
  Check(info.Env(), err, "SCIRemoveSequence");
  return info.Env().Undefined();
}

// sciStartSequence / sciCheckSequence -> 0 OK, 1 RETRIABLE, 2 NOT_RETRIABLE, 3 PENDING
Napi::Value StartSequence(const Napi::CallbackInfo& info) {
  sci_error_t err;
  sci_sequence_status_t s = api.StartSequence(Unwrap<sci_sequence>(info, 0, "sequence"), 0, &err);
  Check(info.Env(), err, "SCIStartSequence");
  return Napi::Number::New(info.Env(), static_cast<int>(s));
}

Napi::Value CheckSequence(const Napi::CallbackInfo& info) {
  sci_error_t err;
  sci_sequence_status_t s = api.CheckSequence(Unwrap<sci_sequence>(info, 0, "sequence"), 0, &err);
  Check(info.Env(), err, "SCICheckSequence");
  return Napi::Number::New(info.Env(), static_cast<int>(s));
}

Napi::Value StoreBarrier(const Napi::CallbackInfo& info) {
  api.StoreBarrier(Unwrap<sci_sequence>(info, 0, "sequence"), 0);
  return info.Env().Undefined();
}

// sciMemCpy(sequence, map, remoteOffset, src, srcOffset, length)
Napi::Value MemCpy(const Napi::CallbackInfo& info) {
  auto* seq = Unwrap<sci_sequence>(info, 0, "sequence");
  auto* map = Unwrap<sci_map>(info, 1, "map");
  unsigned int off = U32(info, 2, "sciMemCpy", "remoteOffset");
  Bytes src = GetBytes(info, 3, "sciMemCpy", "src");
  size_t from = static_cast<size_t>(GetInteger(info, 4, "sciMemCpy", "srcOffset", 0, kMaxSafeInteger));
  size_t len = static_cast<size_t>(GetInteger(info, 5, "sciMemCpy", "length", 0, 4294967295.0));
  if (from + len > src.length) ThrowRangeError(info.Env(), "sciMemCpy: source range past the end of src");
  sci_error_t err;
  api.MemCpy(seq, src.data + from, map, off, static_cast<unsigned int>(len), 0, &err);
  Check(info.Env(), err, "SCIMemCpy(offset " + std::to_string(off) + ", " + std::to_string(len) + " bytes)");
  return info.Env().Undefined();
}

// sciWriteChecked(sequence, map, remoteOffset, src, srcOffset, length, maxRetries) -> rewrites needed
// SCIStartSequence, SCIMemCpy, SCICheckSequence, again while the check says RETRIABLE (at most
// maxRetries times; then SCI_ERR_TRANSFER_FAILED): one call per checked message instead of three.
Napi::Value WriteChecked(const Napi::CallbackInfo& info) {
  auto* seq = Unwrap<sci_sequence>(info, 0, "sequence");
  auto* map = Unwrap<sci_map>(info, 1, "map");
  unsigned int off = U32(info, 2, "sciWriteChecked", "remoteOffset");
  Bytes src = GetBytes(info, 3, "sciWriteChecked", "src");
  size_t from = static_cast<size_t>(GetInteger(info, 4, "sciWriteChecked", "srcOffset", 0, kMaxSafeInteger));
  size_t len = static_cast<size_t>(GetInteger(info, 5, "sciWriteChecked", "length", 0, 4294967295.0));
  unsigned int maxRetries = U32(info, 6, "sciWriteChecked", "maxRetries");
  if (from + len > src.length) ThrowRangeError(info.Env(), "sciWriteChecked: source range past the end of src");
  for (unsigned int attempt = 0;; attempt++) {
    sci_error_t err;
    api.StartSequence(seq, 0, &err);
    api.MemCpy(seq, src.data + from, map, off, static_cast<unsigned int>(len), 0, &err);
    Check(info.Env(), err, "SCIMemCpy(offset " + std::to_string(off) + ", " + std::to_string(len) + " bytes)");
    sci_sequence_status_t status = api.CheckSequence(seq, 0, &err);
    if (status == SCI_SEQ_OK) return Napi::Number::New(info.Env(), attempt);
    if (status != SCI_SEQ_RETRIABLE || attempt == maxRetries) {
      Check(info.Env(), SCI_ERR_TRANSFER_FAILED, "SCICheckSequence after " + std::to_string(attempt + 1) + " writes of " +
                                                     std::to_string(len) + " bytes at offset " + std::to_string(off));
    }
  }
}

// sciCreateInterrupt(desc, number | -1) -> { handle, number }
Napi::Value CreateInterrupt(const Napi::CallbackInfo& info) {
  double want = GetNumber(info, 1, "sciCreateInterrupt", "number");
  unsigned int no = want < 0 ? 0 : static_cast<unsigned int>(want);
  sci_local_interrupt_t li;
  sci_error_t err;
  api.CreateInterrupt(Unwrap<sci_desc>(info, 0, "descriptor"), &li, 0, &no, nullptr, nullptr,
                      want < 0 ? 0 : *api.flagFixedIntno, &err);
  Check(info.Env(), err, "SCICreateInterrupt");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("handle", Wrap(info.Env(), li));
  out.Set("number", Napi::Number::New(info.Env(), no));
  return out;
}

Napi::Value RemoveInterrupt(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.RemoveInterrupt(Unwrap<sci_local_interrupt>(info, 0, "interrupt"), 0, &err);
  Check(info.Env(), err, "SCIRemoveInterrupt");
  return info.Env().Undefined();
}

// sciWaitForInterrupt(interrupt, timeoutMs) -> true when triggered, false on timeout.
Napi::Value WaitForInterrupt(const Napi::CallbackInfo& info) {
  unsigned int timeout = U32(info, 1, "sciWaitForInterrupt", "timeoutMs");
  sci_error_t err;
  api.WaitForInterrupt(Unwrap<sci_local_interrupt>(info, 0, "interrupt"), timeout, 0, &err);
  if (err == SCI_ERR_TIMEOUT) return Napi::Boolean::New(info.Env(), false);
  Check(info.Env(), err, "SCIWaitForInterrupt");
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value ConnectInterrupt(const Napi::CallbackInfo& info) {
  unsigned int node = U32(info, 1, "sciConnectInterrupt", "nodeId");
  unsigned int no = U32(info, 2, "sciConnectInterrupt", "number");
  unsigned int timeout = U32(info, 3, "sciConnectInterrupt", "timeoutMs");
  sci_remote_interrupt_t ri;
  sci_error_t err;
  api.ConnectInterrupt(Unwrap<sci_desc>(info, 0, "descriptor"), &ri, node, 0, no, timeout, 0, &err);
  Check(info.Env(), err, "SCIConnectInterrupt(node " + std::to_string(node) + ", interrupt " + std::to_string(no) + ")");
  return Wrap(info.Env(), ri);
}

Napi::Value DisconnectInterrupt(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.DisconnectInterrupt(Unwrap<sci_remote_interrupt>(info, 0, "remote interrupt"), 0, &err);
  Check(info.Env(), err, "SCIDisconnectInterrupt");
  return info.Env().Undefined();
}

Napi::Value TriggerInterrupt(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.TriggerInterrupt(Unwrap<sci_remote_interrupt>(info, 0, "remote interrupt"), 0, &err);
  Check(info.Env(), err, "SCITriggerInterrupt");
  return info.Env().Undefined();
}

// An interrupt relay: a native thread blocks in SCIWaitForInterrupt and, for every trigger,
// bumps a futex cell and wakes it, so a rank sleeping on its doorbell wakes when another SCI
// node triggers its interrupt (003c §2.1's device thread, reduced to waking the rank; SCI
// interrupts cannot wake a futex by themselves). The thread polls a stop flag every 100 ms.
struct Relay {
  sci_local_interrupt_t interrupt;
  int32_t* cell;
  Napi::Reference<Napi::Value> keepCells;  // the cells' buffer lives while the thread runs
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  std::atomic<unsigned> relayed{0};
};

void* RelayThread(void* arg) {
  auto* relay = static_cast<Relay*>(arg);
  while (!relay->stop.load()) {
    sci_error_t err;
    api.WaitForInterrupt(relay->interrupt, 100, 0, &err);
    if (err != SCI_ERR_OK) continue;
    __atomic_add_fetch(relay->cell, 1, __ATOMIC_SEQ_CST);
    FutexWake(relay->cell, 0x7fffffff);
    relay->relayed.fetch_add(1);
  }
  relay->done.store(true);
  return nullptr;
}

// sciStartRelay(interrupt, cells: Int32Array over a SharedArrayBuffer, index) -> relay handle
Napi::Value StartRelay(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* relay = new Relay();
  relay->interrupt = Unwrap<sci_local_interrupt>(info, 0, "interrupt");
  relay->cell = GetSharedCell(info, 1, "sciStartRelay");
  relay->keepCells = Napi::Persistent(info[1]);
  pthread_t thread;
  if (pthread_create(&thread, nullptr, RelayThread, relay) != 0) {
    delete relay;
    ThrowCodedError(env, "EAGAIN", "sciStartRelay: cannot start the relay thread");
  }
  pthread_detach(thread);
  return Wrap(env, relay);
}

// sciStopRelay(relay) -> triggers relayed; waits for the thread (at most ~100 ms).
Napi::Value StopRelay(const Napi::CallbackInfo& info) {
  auto* relay = Unwrap<Relay>(info, 0, "relay");
  relay->stop.store(true);
  while (!relay->done.load()) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, nullptr);
  }
  unsigned n = relay->relayed.load();
  relay->keepCells.Reset();
  delete relay;
  return Napi::Number::New(info.Env(), n);
}

// DMA queues (003c §2.2): transfers between a local segment and a connected remote segment,
// carried out by the adapter (here: the emulation's worker thread) while the CPU goes on.
// Completion is polled with sciDMAQueueState; no callback reaches JavaScript.

// sciCreateDMAQueue(desc, maxEntries) -> queue handle
Napi::Value CreateDMAQueue(const Napi::CallbackInfo& info) {
  unsigned int entries = U32(info, 1, "sciCreateDMAQueue", "maxEntries");
  sci_dma_queue_t q;
  sci_error_t err;
  api.CreateDMAQueue(Unwrap<sci_desc>(info, 0, "descriptor"), &q, 0, entries, 0, &err);
  Check(info.Env(), err, "SCICreateDMAQueue(" + std::to_string(entries) + " entries)");
  return Wrap(info.Env(), q);
}

Napi::Value RemoveDMAQueue(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.RemoveDMAQueue(Unwrap<sci_dma_queue>(info, 0, "DMA queue"), 0, &err);
  Check(info.Env(), err, "SCIRemoveDMAQueue");
  return info.Env().Undefined();
}

// sciEnqueueDMA(queue, localSegment, remoteSegment, localOffset, remoteOffset, size, read: boolean) -> state
Napi::Value EnqueueDMA(const Napi::CallbackInfo& info) {
  unsigned int localOffset = U32(info, 3, "sciEnqueueDMA", "localOffset");
  unsigned int remoteOffset = U32(info, 4, "sciEnqueueDMA", "remoteOffset");
  unsigned int size = U32(info, 5, "sciEnqueueDMA", "size");
  unsigned int flags = info[6].ToBoolean() ? *api.flagDmaRead : 0;
  sci_error_t err;
  sci_dma_queue_state_t state = api.EnqueueDMATransfer(
      Unwrap<sci_dma_queue>(info, 0, "DMA queue"), Unwrap<sci_local_segment>(info, 1, "local segment"),
      Unwrap<sci_remote_segment>(info, 2, "remote segment"), localOffset, remoteOffset, size, flags, &err);
  Check(info.Env(), err, "SCIEnqueueDMATransfer(local " + std::to_string(localOffset) + ", remote " +
                             std::to_string(remoteOffset) + ", " + std::to_string(size) + " bytes)");
  return Napi::Number::New(info.Env(), static_cast<double>(state));
}

// The completion callback (on the library's thread): bumps the futex cell and wakes it, so a
// rank asleep on its doorbell wakes when its DMA is done.
sci_callback_action_t DmaDone(void* arg, sci_dma_queue_t, sci_error_t) {
  auto* cell = static_cast<int32_t*>(arg);
  __atomic_add_fetch(cell, 1, __ATOMIC_SEQ_CST);
  FutexWake(cell, 0x7fffffff);
  return SCI_CALLBACK_CONTINUE;
}

// sciPostDMAQueue(queue, cells?: Int32Array, index?) -- with cells, completion wakes cells[index].
// The cells' buffer must outlive the transfer (ch_sci passes its rank segment, mapped for life).
Napi::Value PostDMAQueue(const Napi::CallbackInfo& info) {
  sci_error_t err;
  int32_t* cell = info.Length() > 1 && !info[1].IsUndefined() ? GetSharedCell(info, 1, "sciPostDMAQueue") : nullptr;
  api.PostDMAQueue(Unwrap<sci_dma_queue>(info, 0, "DMA queue"), cell != nullptr ? DmaDone : nullptr, cell,
                   cell != nullptr ? *api.flagUseCallback : 0, &err);
  Check(info.Env(), err, "SCIPostDMAQueue");
  return info.Env().Undefined();
}

Napi::Value ResetDMAQueue(const Napi::CallbackInfo& info) {
  sci_error_t err;
  api.ResetDMAQueue(Unwrap<sci_dma_queue>(info, 0, "DMA queue"), 0, &err);
  Check(info.Env(), err, "SCIResetDMAQueue");
  return info.Env().Undefined();
}

Napi::Value DMAQueueState(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(),
                           static_cast<double>(api.DMAQueueState(Unwrap<sci_dma_queue>(info, 0, "DMA queue"))));
}

// sciWaitForDMAQueue(queue, timeoutMs) -> state (SCI_ERR_TIMEOUT and SCI_ERR_TRANSFER_FAILED are states here, not throws)
Napi::Value WaitForDMAQueue(const Napi::CallbackInfo& info) {
  unsigned int timeout = U32(info, 1, "sciWaitForDMAQueue", "timeoutMs");
  sci_error_t err;
  sci_dma_queue_state_t state = api.WaitForDMAQueue(Unwrap<sci_dma_queue>(info, 0, "DMA queue"), timeout, 0, &err);
  if (err != SCI_ERR_TIMEOUT && err != SCI_ERR_TRANSFER_FAILED) Check(info.Env(), err, "SCIWaitForDMAQueue");
  return Napi::Number::New(info.Env(), static_cast<double>(state));
}

// sciFaultCounters() -> { sequenceErrors, corruptedBytes, lateStores } (zeros for Dolphin's library).
Napi::Value FaultCounters(const Napi::CallbackInfo& info) {
  sci_emu_fault_counters_t c = {0, 0, 0};
  if (api.EmuFaultCounters != nullptr) api.EmuFaultCounters(&c);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("sequenceErrors", Napi::Number::New(info.Env(), static_cast<double>(c.sequenceErrors)));
  out.Set("corruptedBytes", Napi::Number::New(info.Env(), static_cast<double>(c.corruptedBytes)));
  out.Set("lateStores", Napi::Number::New(info.Env(), static_cast<double>(c.lateStores)));
  return out;
}

}  // namespace

void RegisterSisci(Napi::Env env, Napi::Object exports) {
  exports.Set("sciLoad", Napi::Function::New(env, Load, "sciLoad"));
  exports.Set("sciOpen", Napi::Function::New(env, Open, "sciOpen"));
  exports.Set("sciClose", Napi::Function::New(env, Close, "sciClose"));
  exports.Set("sciNodeId", Napi::Function::New(env, NodeId, "sciNodeId"));
  exports.Set("sciProbeNode", Napi::Function::New(env, ProbeNode, "sciProbeNode"));
  exports.Set("sciCreateSegment", Napi::Function::New(env, CreateSegment, "sciCreateSegment"));
  exports.Set("sciSetAvailable", Napi::Function::New(env, SetAvailable, "sciSetAvailable"));
  exports.Set("sciRemoveSegment", Napi::Function::New(env, RemoveSegment, "sciRemoveSegment"));
  exports.Set("sciConnectSegment", Napi::Function::New(env, ConnectSegment, "sciConnectSegment"));
  exports.Set("sciDisconnectSegment", Napi::Function::New(env, DisconnectSegment, "sciDisconnectSegment"));
  exports.Set("sciMap", Napi::Function::New(env, Map, "sciMap"));
  exports.Set("sciUnmap", Napi::Function::New(env, Unmap, "sciUnmap"));
  exports.Set("sciCreateSequence", Napi::Function::New(env, CreateSequence, "sciCreateSequence"));
  exports.Set("sciRemoveSequence", Napi::Function::New(env, RemoveSequence, "sciRemoveSequence"));
  exports.Set("sciStartSequence", Napi::Function::New(env, StartSequence, "sciStartSequence"));
  exports.Set("sciCheckSequence", Napi::Function::New(env, CheckSequence, "sciCheckSequence"));
  exports.Set("sciStoreBarrier", Napi::Function::New(env, StoreBarrier, "sciStoreBarrier"));
  exports.Set("sciMemCpy", Napi::Function::New(env, MemCpy, "sciMemCpy"));
  exports.Set("sciWriteChecked", Napi::Function::New(env, WriteChecked, "sciWriteChecked"));
  exports.Set("sciCreateInterrupt", Napi::Function::New(env, CreateInterrupt, "sciCreateInterrupt"));
  exports.Set("sciRemoveInterrupt", Napi::Function::New(env, RemoveInterrupt, "sciRemoveInterrupt"));
  exports.Set("sciWaitForInterrupt", Napi::Function::New(env, WaitForInterrupt, "sciWaitForInterrupt"));
  exports.Set("sciConnectInterrupt", Napi::Function::New(env, ConnectInterrupt, "sciConnectInterrupt"));
  exports.Set("sciDisconnectInterrupt", Napi::Function::New(env, DisconnectInterrupt, "sciDisconnectInterrupt"));
  exports.Set("sciTriggerInterrupt", Napi::Function::New(env, TriggerInterrupt, "sciTriggerInterrupt"));
  exports.Set("sciStartRelay", Napi::Function::New(env, StartRelay, "sciStartRelay"));
  exports.Set("sciStopRelay", Napi::Function::New(env, StopRelay, "sciStopRelay"));
  exports.Set("sciCreateDMAQueue", Napi::Function::New(env, CreateDMAQueue, "sciCreateDMAQueue"));
  exports.Set("sciRemoveDMAQueue", Napi::Function::New(env, RemoveDMAQueue, "sciRemoveDMAQueue"));
  exports.Set("sciEnqueueDMA", Napi::Function::New(env, EnqueueDMA, "sciEnqueueDMA"));
  exports.Set("sciPostDMAQueue", Napi::Function::New(env, PostDMAQueue, "sciPostDMAQueue"));
  exports.Set("sciResetDMAQueue", Napi::Function::New(env, ResetDMAQueue, "sciResetDMAQueue"));
  exports.Set("sciDMAQueueState", Napi::Function::New(env, DMAQueueState, "sciDMAQueueState"));
  exports.Set("sciWaitForDMAQueue", Napi::Function::New(env, WaitForDMAQueue, "sciWaitForDMAQueue"));
  exports.Set("sciFaultCounters", Napi::Function::New(env, FaultCounters, "sciFaultCounters"));
}

}  // namespace tsmpi
