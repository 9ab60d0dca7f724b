// Reduction kernels for the predefined MPI ops (SCI-MPICH replaced MPICH's reduction loops by
// SIMD kernels, 003c §1.7.1.1; here the compiler vectorises plain loops):
//
//   reduce(op, kind, in, inout, count)   inout[i] = in[i] op inout[i]
//
// op: 0 SUM, 1 PROD, 2 MAX, 3 MIN, 4 LAND, 5 LOR, 6 LXOR, 7 BAND, 8 BOR, 9 BXOR;
// kind: 0 int8, 1 uint8, 2 int16, 3 uint16, 4 int32, 5 uint32, 6 int64, 7 uint64, 8 float32,
// 9 float64, 10 bool (a byte). The results equal src/mpir/op.ts's JavaScript loops bit for bit:
// integers wrap, floats round once (a sum or product of two floats is exact in double, so
// JavaScript's double arithmetic rounds to the same float), a NaN operand wins MAX and MIN,
// the logical ops give 1 or 0. Operands may be unaligned (byte views of any offset).
#pragma GCC optimize("O3")

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

namespace {

template <typename T>
inline T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
inline void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Integer sums and products wrap (as typed-array stores do): compute in the unsigned type.
template <typename T>
inline T Wrap(T a, T b, bool product) {
  using U = std::make_unsigned_t<T>;
  U r = product ? static_cast<U>(static_cast<U>(a) * static_cast<U>(b)) : static_cast<U>(static_cast<U>(a) + static_cast<U>(b));
  return static_cast<T>(r);
}

template <typename T, int Op>
void Kernel(const uint8_t* x, uint8_t* y, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const T a = Load<T>(x + i * sizeof(T));
    const T b = Load<T>(y + i * sizeof(T));
    T r;
    if constexpr (Op == 0 || Op == 1) {
      if constexpr (std::is_floating_point_v<T>) r = Op == 0 ? static_cast<T>(a + b) : static_cast<T>(a * b);
      else r = Wrap<T>(a, b, Op == 1);
    } else if constexpr (Op == 2) {
      r = (a > b || a != a) ? a : b;
    } else if constexpr (Op == 3) {
      r = (a < b || a != a) ? a : b;
    } else if constexpr (Op == 4) {
      r = static_cast<T>((a != 0 && b != 0) ? 1 : 0);
    } else if constexpr (Op == 5) {
      r = static_cast<T>((a != 0 || b != 0) ? 1 : 0);
    } else if constexpr (Op == 6) {
      r = static_cast<T>(((a != 0) != (b != 0)) ? 1 : 0);
    } else if constexpr (std::is_integral_v<T> && Op == 7) {
      r = static_cast<T>(a & b);
    } else if constexpr (std::is_integral_v<T> && Op == 8) {
      r = static_cast<T>(a | b);
    } else if constexpr (std::is_integral_v<T> && Op == 9) {
      r = static_cast<T>(a ^ b);
    } else {
      r = b;
    }
    Store<T>(y + i * sizeof(T), r);
  }
}

using KernelFn = void (*)(const uint8_t*, uint8_t*, size_t);

template <typename T>
KernelFn ForOp(int op) {
  switch (op) {
    case 0: return Kernel<T, 0>;
    case 1: return Kernel<T, 1>;
    case 2: return Kernel<T, 2>;
    case 3: return Kernel<T, 3>;
    case 4: return Kernel<T, 4>;
    case 5: return Kernel<T, 5>;
    case 6: return Kernel<T, 6>;
    case 7: return std::is_integral_v<T> ? Kernel<T, 7> : nullptr;
    case 8: return std::is_integral_v<T> ? Kernel<T, 8> : nullptr;
    case 9: return std::is_integral_v<T> ? Kernel<T, 9> : nullptr;
    default: return nullptr;
  }
}

KernelFn Select(int op, int kind, size_t* width) {
  switch (kind) {
    case 0: *width = 1; return ForOp<int8_t>(op);
    case 1: *width = 1; return ForOp<uint8_t>(op);
    case 2: *width = 2; return ForOp<int16_t>(op);
    case 3: *width = 2; return ForOp<uint16_t>(op);
    case 4: *width = 4; return ForOp<int32_t>(op);
    case 5: *width = 4; return ForOp<uint32_t>(op);
    case 6: *width = 8; return ForOp<int64_t>(op);
    case 7: *width = 8; return ForOp<uint64_t>(op);
    case 8: *width = 4; return op <= 6 ? ForOp<float>(op) : nullptr;
    case 9: *width = 8; return op <= 6 ? ForOp<double>(op) : nullptr;
    case 10: *width = 1; return ForOp<uint8_t>(op);
    default: return nullptr;
  }
}

constexpr const char* kCall = "reduce";

Napi::Value Reduce(const Napi::CallbackInfo& info) {
  int op = static_cast<int>(GetInteger(info, 0, kCall, "op", 0, 9));
  int kind = static_cast<int>(GetInteger(info, 1, kCall, "kind", 0, 10));
  Bytes in = GetBytes(info, 2, kCall, "in");
  Bytes inout = GetBytes(info, 3, kCall, "inout");
  size_t count = static_cast<size_t>(GetInteger(info, 4, kCall, "count", 0, kMaxSafeInteger));
  size_t width = 0;
  KernelFn fn = Select(op, kind, &width);
  if (fn == nullptr) ThrowRangeError(info.Env(), "reduce: op " + std::to_string(op) + " is not defined on kind " + std::to_string(kind));
  if (count * width > in.length || count * width > inout.length) {
    ThrowRangeError(info.Env(), "reduce: " + std::to_string(count) + " elements of " + std::to_string(width) +
                                    " bytes do not fit the operands (" + std::to_string(in.length) + " and " +
                                    std::to_string(inout.length) + " bytes)");
  }
  fn(in.data, inout.data, count);
  return info.Env().Undefined();
}

}  // namespace

void RegisterReduce(Napi::Env env, Napi::Object exports) {
  exports.Set("reduce", Napi::Function::New(env, Reduce, kCall));
}

}  // namespace tsmpi
