// Module entry: creates the per-environment data and lets each module register its exports.
// The JavaScript-facing contract (types and documentation) is src/native/addon.ts.
#include <napi.h>

#include "addon_data.h"
#include "exports.h"

namespace tsmpi {

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData(data);  // deleted by Node-API when this environment is torn down

  Napi::Object global = env.Global();
  data->uint8Array = Napi::Persistent(global.Get("Uint8Array").As<Napi::Function>());
  Napi::Object sharedPrototype =
      global.Get("SharedArrayBuffer").As<Napi::Object>().Get("prototype").As<Napi::Object>();
  Napi::Object descriptor = global.Get("Object")
                                .As<Napi::Object>()
                                .Get("getOwnPropertyDescriptor")
                                .As<Napi::Function>()
                                .Call({sharedPrototype, Napi::String::New(env, "byteLength")})
                                .As<Napi::Object>();
  data->sharedByteLength = Napi::Persistent(descriptor.Get("get").As<Napi::Function>());

  RegisterShm(env, exports);
  RegisterFutex(env, exports);
  RegisterFutexAsync(env, exports);
  RegisterCma(env, exports);
  RegisterCrc32(env, exports);
  RegisterSocket(env, exports);
  RegisterStrided(env, exports);
  RegisterSisci(env, exports);
  RegisterReduce(env, exports);
  RegisterStateSignal(env, exports);
  RegisterLifetime(env, exports);
  RegisterUcx(env, exports);
  return exports;
}

}  // namespace

}  // namespace tsmpi

// NODE_API_MODULE pastes the name into an identifier, so it takes an unqualified one.
static Napi::Object InitTsmpi(Napi::Env env, Napi::Object exports) {
  return tsmpi::Init(env, exports);
}

NODE_API_MODULE(tsmpi, InitTsmpi)
