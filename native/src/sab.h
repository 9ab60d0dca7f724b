// A SharedArrayBuffer over memory the addon owns (a shared-memory mapping), released by a
// callback once the last JavaScript reference to it, in any thread, is gone.
#ifndef TSMPI_SAB_H_
#define TSMPI_SAB_H_

#include <napi.h>

#include <cstddef>

namespace tsmpi {

// Called exactly once, on any thread, when the buffer is garbage-collected (or its environment
// and every Worker it was posted to are gone).
using ReleaseMemory = void (*)(void* data, size_t length);

// Wraps [data, data + length) without copying; from then on the buffer owns the memory.
Napi::Value NewExternalSharedArrayBuffer(Napi::Env env, void* data, size_t length,
                                         ReleaseMemory release);

// A plain (not shared) ArrayBuffer over [data, data + length), memory that `owner` holds (a
// SharedArrayBuffer, or a view of one): the view keeps `owner` alive, and with it the memory.
Napi::Value NewPlainView(Napi::Env env, Napi::Value owner, void* data, size_t length);

}  // namespace tsmpi

#endif  // TSMPI_SAB_H_
