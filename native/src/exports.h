// One registration function per module; addon.cc calls each with the exports object.
#ifndef TSMPI_EXPORTS_H_
#define TSMPI_EXPORTS_H_

#include <napi.h>

namespace tsmpi {

void RegisterShm(Napi::Env env, Napi::Object exports);         // shm.cc
void RegisterFutex(Napi::Env env, Napi::Object exports);       // futex.cc
void RegisterFutexAsync(Napi::Env env, Napi::Object exports);  // futex_async.cc
void RegisterCma(Napi::Env env, Napi::Object exports);         // cma.cc
void RegisterCrc32(Napi::Env env, Napi::Object exports);       // crc32.cc
void RegisterSocket(Napi::Env env, Napi::Object exports);      // socket.cc
void RegisterStrided(Napi::Env env, Napi::Object exports);     // strided.cc
void RegisterSisci(Napi::Env env, Napi::Object exports);       // sisci.cc
void RegisterReduce(Napi::Env env, Napi::Object exports);      // reduce.cc
void RegisterStateSignal(Napi::Env env, Napi::Object exports); // state_signal.cc
void RegisterUcx(Napi::Env env, Napi::Object exports);         // ucx_exports.cc
void RegisterLifetime(Napi::Env env, Napi::Object exports);    // lifetime.cc

}  // namespace tsmpi

#endif  // TSMPI_EXPORTS_H_
