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

}  // namespace tsmpi

#endif  // TSMPI_SAB_H_
