// Per-environment state of the addon (the main thread and every worker_threads Worker that loads
// it get their own), kept as Node-API instance data and freed when that environment is torn down.
#ifndef TSMPI_ADDON_DATA_H_
#define TSMPI_ADDON_DATA_H_

#include <napi.h>

namespace tsmpi {

class AsyncWaiter;

struct AddonData {
  // new Uint8Array(sab): the Node-API of Node 20 cannot read a SharedArrayBuffer's data pointer
  // directly, but it can read the pointer of a typed array over one.
  Napi::FunctionReference uint8Array;
  // The SharedArrayBuffer.prototype.byteLength getter: calling it is a brand check that, unlike
  // instanceof, cannot be fooled by a prototype chain and works across realms.
  Napi::FunctionReference sharedByteLength;
  // ['ok', 'not-equal', 'timed-out'] indexed by FutexResult, created once so that a wait
  // allocates no string (Node-API before version 10 cannot reference a string directly).
  Napi::ObjectReference waitResults;
  // Owned by futex_async.cc: created at module init, destroyed by its environment cleanup hook.
  AsyncWaiter* asyncWaiter = nullptr;
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

}  // namespace tsmpi

#endif  // TSMPI_ADDON_DATA_H_
