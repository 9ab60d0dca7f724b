#include "sab.h"

#include <dlfcn.h>
#include <v8.h>

#include <cstring>
#include <memory>
#include <mutex>

namespace tsmpi {

namespace {

// What the release callback needs that neither finalizer signature passes: the length (the
// Node-API finalizer gets only data and hint) and the function to call.
struct Release {
  ReleaseMemory fn;
  size_t length;
};

void RunRelease(void* data, Release* release) {
  release->fn(data, release->length);
  delete release;
}

// node_api_create_external_sharedarraybuffer (Node 26.1.0 and later). Its finalizer takes no env
// because the buffer may outlive the environment that made it (it can be posted to Workers).
using CreateExternalSab = napi_status (*)(napi_env env, void* data, size_t length,
                                          void (*finalize)(void* data, void* hint), void* hint,
                                          napi_value* result);

CreateExternalSab FindNodeApiCreate() {
  static std::once_flag once;
  static CreateExternalSab fn = nullptr;
  std::call_once(once, [] {
    fn = reinterpret_cast<CreateExternalSab>(
        dlsym(RTLD_DEFAULT, "node_api_create_external_sharedarraybuffer"));
  });
  return fn;
}

// Here and in NewPlainView the addon uses V8 directly: Node 20's Node-API can make neither a
// SharedArrayBuffer over external memory nor an ArrayBuffer V8 does not count as the heap's own.
// A napi_value is a v8::Local<v8::Value> in Node's implementation, and the handle lives in the
// HandleScope Node-API opened for the current call; these two convert between them.
static_assert(sizeof(napi_value) == sizeof(v8::Local<v8::Value>), "napi_value must be a v8::Local");

napi_value FromV8(v8::Local<v8::Value> local) {
  napi_value value;
  std::memcpy(&value, &local, sizeof value);
  return value;
}

v8::Local<v8::Value> ToV8(napi_value value) {
  v8::Local<v8::Value> local;
  std::memcpy(static_cast<void*>(&local), &value, sizeof value);
  return local;
}

napi_value NewWithV8(void* data, size_t length, Release* release) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  std::unique_ptr<v8::BackingStore> store = v8::SharedArrayBuffer::NewBackingStore(
      data, length,
      [](void* d, size_t, void* hint) { RunRelease(d, static_cast<Release*>(hint)); }, release);
  return FromV8(v8::SharedArrayBuffer::New(isolate, std::move(store)));
}

}  // namespace

Napi::Value NewPlainView(Napi::Env env, Napi::Value owner, void* data, size_t length) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  // EmptyDeleter: the view frees nothing, so V8 does not count the memory as the isolate's own
  // external memory. A view through Node-API's external ArrayBuffer is counted: 32 ranks' views of
  // their sparse segments drove ~130 full collections through Init (external memory pressure).
  std::unique_ptr<v8::BackingStore> store =
      v8::ArrayBuffer::NewBackingStore(data, length, v8::BackingStore::EmptyDeleter, nullptr);
  v8::Local<v8::ArrayBuffer> plain = v8::ArrayBuffer::New(isolate, std::move(store));
  v8::Local<v8::Private> key =
      v8::Private::ForApi(isolate, v8::String::NewFromUtf8Literal(isolate, "tsmpi.plainView.owner"));
  if (plain->SetPrivate(context, key, ToV8(owner)).IsNothing()) {
    throw Napi::Error::New(env, "shmPlainView: cannot tie the view to its SharedArrayBuffer");
  }
  return Napi::Value(env, FromV8(plain));
}

Napi::Value NewExternalSharedArrayBuffer(Napi::Env env, void* data, size_t length,
                                         ReleaseMemory release) {
  auto* hint = new Release{release, length};
  napi_value result = nullptr;
  if (CreateExternalSab create = FindNodeApiCreate()) {
    napi_status status = create(
        env, data, length,
        [](void* d, void* h) { RunRelease(d, static_cast<Release*>(h)); }, hint, &result);
    if (status == napi_ok) return Napi::Value(env, result);
    // A runtime that exports the call but refuses it (an embedder restriction) still gets the
    // buffer through V8, without the exception it may have left pending.
    bool pending = false;
    napi_value ignored;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_get_and_clear_last_exception(env, &ignored);
    }
  }
  return Napi::Value(env, NewWithV8(data, length, hint));
}

}  // namespace tsmpi
