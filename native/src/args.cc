#include "args.h"

#include <time.h>

#include <cmath>
#include <cstdio>

#include "addon_data.h"
#include "errors.h"

namespace tsmpi {

namespace {

size_t ElementSize(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array:
      return 8;
  }
  return 0;
}

const char* TypedArrayName(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array: return "Int8Array";
    case napi_uint8_array: return "Uint8Array";
    case napi_uint8_clamped_array: return "Uint8ClampedArray";
    case napi_int16_array: return "Int16Array";
    case napi_uint16_array: return "Uint16Array";
    case napi_int32_array: return "Int32Array";
    case napi_uint32_array: return "Uint32Array";
    case napi_float32_array: return "Float32Array";
    case napi_float64_array: return "Float64Array";
    case napi_bigint64_array: return "BigInt64Array";
    case napi_biguint64_array: return "BigUint64Array";
  }
  return "typed array";
}

void Check(Napi::Env env, napi_status status) {
  if (status != napi_ok) NAPI_THROW_VOID(Napi::Error::New(env));
}

bool IsSharedArrayBuffer(Napi::Env env, Napi::Value value) {
  if (!value.IsObject()) return false;
  try {
    GetAddonData(env).sharedByteLength.Call(value, {});
    return true;
  } catch (const Napi::Error&) {
    return false;  // the getter's brand check threw: not a SharedArrayBuffer
  }
}

}  // namespace

IovPairs GetIovPairs(const Napi::CallbackInfo& info, size_t arrayIndex, const char* call, const char* arrayName,
                     const char* countName) {
  Napi::Env env = info.Env();
  Napi::Value value = info[arrayIndex];
  bool is = false;
  napi_typedarray_type type = napi_uint8_array;
  size_t length = 0;
  void* data = nullptr;
  if (napi_is_typedarray(env, value, &is) == napi_ok && is) {
    napi_get_typedarray_info(env, value, &type, &length, &data, nullptr, nullptr);
  }
  if (!is || type != napi_float64_array) {
    ThrowTypeError(env, std::string(call) + ": " + arrayName + " must be a Float64Array of (address, length) pairs, got " +
                            DescribeValue(value));
  }
  size_t count = static_cast<size_t>(GetInteger(info, arrayIndex + 1, call, countName, 0, static_cast<double>(length / 2)));
  const double* pairs = static_cast<const double*>(data);
  double total = 0;
  for (size_t i = 0; i < 2 * count; ++i) {
    double v = pairs[i];
    if (!(v >= 0 && v <= kMaxSafeInteger) || v != static_cast<double>(static_cast<uint64_t>(v))) {
      ThrowRangeError(env, std::string(call) + ": " + arrayName + "[" + std::to_string(i) + "] (" +
                               (i % 2 == 0 ? "address" : "length") + " of entry " + std::to_string(i / 2) +
                               ") must be an integer in [0, 2^53 - 1], got " + FormatNumber(v));
    }
    if (i % 2 == 1) total += v;
  }
  return IovPairs{pairs, count, total};
}

Bytes GetBytes(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name) {
  Napi::Env env = info.Env();
  Napi::Value value = info[index];
  bool is = false;
  Check(env, napi_is_typedarray(env, value, &is));
  if (!is && IsSharedArrayBuffer(env, value)) {
    value = GetAddonData(env).uint8Array.New({value});
    is = true;
  }
  if (is) {
    napi_typedarray_type type;
    size_t length = 0;
    void* data = nullptr;
    Check(env, napi_get_typedarray_info(env, value, &type, &length, &data, nullptr, nullptr));
    return {static_cast<uint8_t*>(data), length * ElementSize(type)};
  }
  Check(env, napi_is_dataview(env, value, &is));
  if (is) {
    size_t length = 0;
    void* data = nullptr;
    Check(env, napi_get_dataview_info(env, value, &length, &data, nullptr, nullptr));
    return {static_cast<uint8_t*>(data), length};
  }
  Check(env, napi_is_arraybuffer(env, value, &is));
  if (is) {
    size_t length = 0;
    void* data = nullptr;
    Check(env, napi_get_arraybuffer_info(env, value, &data, &length));
    return {static_cast<uint8_t*>(data), length};
  }
  ThrowTypeError(env, std::string(call) + ": " + name +
                          " must be a TypedArray, DataView, ArrayBuffer or SharedArrayBuffer, got " +
                          DescribeValue(value));
}

int32_t* GetSharedCell(const Napi::CallbackInfo& info, size_t index, const char* call) {
  Napi::Env env = info.Env();
  Napi::Value value = info[index];
  bool is = false;
  Check(env, napi_is_typedarray(env, value, &is));
  napi_typedarray_type type = napi_uint8_array;
  size_t length = 0;
  void* data = nullptr;
  napi_value buffer = nullptr;
  if (is) Check(env, napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, nullptr));
  bool isPlainBuffer = false;
  if (is) Check(env, napi_is_arraybuffer(env, buffer, &isPlainBuffer));
  // V8 reports a SharedArrayBuffer as not an ArrayBuffer, which is the test for "shared" here.
  if (!is || type != napi_int32_array || isPlainBuffer) {
    ThrowTypeError(env, std::string(call) +
                            ": cells must be an Int32Array over a SharedArrayBuffer, got " +
                            DescribeValue(value));
  }
  double i = GetNumber(info, index + 1, call, "index");
  if (!(i >= 0) || i != std::floor(i) || i >= static_cast<double>(length)) {
    ThrowRangeError(env, std::string(call) + ": index " + FormatNumber(i) +
                             " is out of range for an Int32Array of length " +
                             std::to_string(length));
  }
  return static_cast<int32_t*>(data) + static_cast<size_t>(i);
}

double GetNumber(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name) {
  Napi::Value value = info[index];
  // One Node-API call that also checks the type: these run on every futex and CRC call.
  double number = 0;
  if (napi_get_value_double(info.Env(), value, &number) != napi_ok) {
    ThrowTypeError(info.Env(), std::string(call) + ": " + name + " must be a number, got " +
                                   DescribeValue(value));
  }
  return number;
}

int64_t GetInteger(const Napi::CallbackInfo& info, size_t index, const char* call,
                   const char* name, double min, double max) {
  double value = GetNumber(info, index, call, name);
  if (!(value >= min && value <= max) || value != std::floor(value)) {
    ThrowRangeError(info.Env(), std::string(call) + ": " + name + " must be an integer in [" +
                                    FormatNumber(min) + ", " + FormatNumber(max) + "], got " +
                                    FormatNumber(value));
  }
  return static_cast<int64_t>(value);
}

int64_t GetOptionalInteger(const Napi::CallbackInfo& info, size_t index, const char* call,
                           const char* name, double min, double max, int64_t fallback) {
  if (info[index].IsUndefined()) return fallback;
  return GetInteger(info, index, call, name, min, max);
}

int32_t ToInt32(double value) {
  if (!std::isfinite(value)) return 0;
  double wrapped = std::fmod(std::trunc(value), 4294967296.0);
  if (wrapped < 0) wrapped += 4294967296.0;
  return static_cast<int32_t>(static_cast<uint32_t>(wrapped));
}

std::string GetString(const Napi::CallbackInfo& info, size_t index, const char* call,
                      const char* name) {
  Napi::Value value = info[index];
  if (!value.IsString()) {
    ThrowTypeError(info.Env(), std::string(call) + ": " + name + " must be a string, got " +
                                   DescribeValue(value));
  }
  return value.As<Napi::String>().Utf8Value();
}

int64_t MonotonicNowNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int64_t GetDeadline(const Napi::CallbackInfo& info, size_t index, const char* call) {
  double ms = GetNumber(info, index, call, "timeoutMs");
  // Past ~292 years the nanosecond deadline would overflow; such a wait is a wait forever.
  if (std::isnan(ms) || ms < 0 || ms > 9.0e15) return -1;
  return MonotonicNowNs() + static_cast<int64_t>(ms * 1e6);
}

std::string DescribeValue(Napi::Value value) {
  napi_env env = value.Env();
  switch (value.Type()) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "a boolean";
    case napi_number: return "the number " + FormatNumber(value.As<Napi::Number>().DoubleValue());
    case napi_string: return "a string";
    case napi_symbol: return "a symbol";
    case napi_function: return "a function";
    case napi_bigint: return "a bigint";
    case napi_external: return "an external";
    case napi_object: break;
  }
  bool is = false;
  if (napi_is_typedarray(env, value, &is) == napi_ok && is) {
    napi_typedarray_type type;
    size_t length = 0;
    napi_value buffer = nullptr;
    napi_get_typedarray_info(env, value, &type, &length, nullptr, &buffer, nullptr);
    bool plain = false;
    napi_is_arraybuffer(env, buffer, &plain);
    const char* name = TypedArrayName(type);
    const char* article = name[0] == 'I' ? "an " : "a ";
    return article + std::string(name) + (plain ? " over an ArrayBuffer" : " over a SharedArrayBuffer");
  }
  if (napi_is_dataview(env, value, &is) == napi_ok && is) return "a DataView";
  if (napi_is_arraybuffer(env, value, &is) == napi_ok && is) return "an ArrayBuffer";
  if (value.IsArray()) return "an array";
  return "an object";
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e21) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", value);
  }
  return buf;
}

}  // namespace tsmpi
