// Registers the UCX binding's functions. A build without UCX's headers (binding.gyp found no
// ucp/api/ucp.h) registers the same names, each throwing Error{code: 'ENOSYS'} that says what
// to install, so the JavaScript side has one shape everywhere and asks ucxProbe() what works.
// ucxLayout() (the ring layout, for the JavaScript side's check) works in both.
#include <napi.h>

#include "args.h"
#include "errors.h"
#include "exports.h"
#include "ucx_rings.h"

#if TSMPI_HAVE_UCX
#include "ucx_objects.h"
#endif

namespace tsmpi {

namespace {

Napi::Value Layout(const Napi::CallbackInfo& info) {
  using namespace ucx;
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  auto set = [&](const char* name, double value) { o.Set(name, Napi::Number::New(env, value)); };
  set("maxHeader", kMaxHeader);
  set("ctlInboxHead", kCtlInboxHead);
  set("ctlInboxTail", kCtlInboxTail);
  set("ctlCqHead", kCtlCqHead);
  set("ctlCqTail", kCtlCqTail);
  set("ctlInboxSpilled", kCtlInboxSpilled);
  set("ctlCqSpilled", kCtlCqSpilled);
  set("ctlEpFailures", kCtlEpFailures);
  set("ctlDropped", kCtlDropped);
  set("ctlInboxBytes", kCtlInboxBytes);
  set("ctlCqSlots", kCtlCqSlots);
  set("controlWords", kControlWords);
  set("recMsg", kRecMsg);
  set("recDesc", kRecDesc);
  set("recWrap", kRecWrap);
  set("recordHeaderBytes", kRecordHeaderBytes);
  set("recLengthHighShift", kRecLengthHighShift);
  set("descRndv", kDescRndv);
  set("descData", kDescData);
  set("descCopy", kDescCopy);
  set("cqEntryWords", kCqEntryWords);
  set("cqSend", kCqSend);
  set("cqRecv", kCqRecv);
  set("cqPut", kCqPut);
  set("cqGet", kCqGet);
  set("cqAtomic", kCqAtomic);
  set("cqFlush", kCqFlush);
  set("cqClose", kCqClose);
  set("cqEpFailed", kCqEpFailed);
  return o;
}

#if !TSMPI_HAVE_UCX

const char kBuiltWithout[] =
    "this tsmpi addon was built without UCX (no ucp/api/ucp.h at build time): install libucx-dev "
    "(Debian/Ubuntu: apt-get install libucx-dev; Fedora/RHEL: dnf install ucx-devel; elsewhere the ucx "
    "package with its headers), then rebuild the addon (`npm rebuild tsmpi --build-from-source`, or "
    "`npm install` in a clone)";

// Every UCX function of a full build, so that both builds export the same names.
const char* const kFunctions[] = {
    "ucxLoad", "ucxContextCreate", "ucxContextDestroy", "ucxWorkerCreate", "ucxWorkerDestroy",
    "ucxWorkerAddress", "ucxEpCreate", "ucxEpClose", "ucxEpStatus", "ucxAmSend", "ucxAmRecv", "ucxAmSendIov", "ucxAmRecvIov", "ucxAmView",
    "ucxAmDiscard", "ucxProgress", "ucxMemMap", "ucxMemAddress", "ucxMemUnmap", "ucxRkeyPack",
    "ucxRkeyUnpack", "ucxRkeyDestroy", "ucxPut", "ucxGet", "ucxAtomic", "ucxEpFlush", "ucxWorkerFlush",
    "ucxFence", "ucxArm", "ucxWait", "ucxBellAttach", "ucxBellArm", "ucxBellDisarm", "ucxBellDetach", "ucxBellServe", "ucxBellServed",
    "ucxWatchStart", "ucxWatchStop",
    "ucxStatusName",
};

Napi::Value Unavailable(const Napi::CallbackInfo& info) {
  const char* name = static_cast<const char*>(info.Data());
  ThrowCodedError(info.Env(), "ENOSYS", std::string(name) + ": " + kBuiltWithout);
}

Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object r = Napi::Object::New(env);
  r.Set("available", Napi::Boolean::New(env, false));
  r.Set("reason", Napi::String::New(env, kBuiltWithout));
  r.Set("version", Napi::String::New(env, ""));
  r.Set("library", Napi::String::New(env, ""));
  return r;
}

#else

// A ucs_status_t as its name ('UCS_ERR_CONNECTION_RESET'), for the negative numbers the
// operations return.
Napi::Value StatusName(const Napi::CallbackInfo& info) {
  auto status = static_cast<ucs_status_t>(GetInteger(info, 0, "ucxStatusName", "status", -1000, 1));
  return Napi::String::New(info.Env(), ucx::StatusName(status));
}

#endif

}  // namespace

void RegisterUcx(Napi::Env env, Napi::Object exports) {
  exports.Set("ucxLayout", Napi::Function::New(env, Layout, "ucxLayout"));
#if TSMPI_HAVE_UCX
  exports.Set("ucxBuiltWithUcx", Napi::Boolean::New(env, true));
  exports.Set("ucxStatusName", Napi::Function::New(env, StatusName, "ucxStatusName"));
  ucx::RegisterContextExports(env, exports);
  ucx::RegisterAmExports(env, exports);
  ucx::RegisterRmaExports(env, exports);
  ucx::RegisterWakeExports(env, exports);
  ucx::RegisterWatchExports(env, exports);
#else
  exports.Set("ucxBuiltWithUcx", Napi::Boolean::New(env, false));
  exports.Set("ucxProbe", Napi::Function::New(env, Probe, "ucxProbe"));
  for (const char* name : kFunctions) {
    exports.Set(name, Napi::Function::New(env, Unavailable, name, const_cast<char*>(name)));
  }
#endif
}

}  // namespace tsmpi
