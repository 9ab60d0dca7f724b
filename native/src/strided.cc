// Strided block copy for the datatype engine's pack and unpack (003b §1, direct packing):
//
//   stridedCopy(src, srcOff, srcStride, dst, dstOff, dstStride, blockLen, count)
//   copyRange(src, srcOff, dst, dstOff, len)   one block: stridedCopy's (..., len, 1)
//
// copies `count` blocks of `blockLen` bytes, block i from src[srcOff + i*srcStride] to
// dst[dstOff + i*dstStride]. A vector level of a flattened type is one call: packing gathers
// (dstStride = blockLen), unpacking scatters (srcStride = blockLen). From JavaScript every block
// costs a TypedArray.set with a subarray view (~40 ns) or a word loop; here a block of a few
// hundred bytes costs a few nanoseconds, so small and medium blocks reach memcpy speed. Strides
// may be negative (MPI allows negative vector strides); both extremes are checked against the
// buffers, so a wrong call throws RangeError instead of touching memory outside them.
#include <cstring>
#include <string>

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

namespace {

constexpr const char* kCall = "stridedCopy";

// Throws unless every block [off + i*stride, off + i*stride + blockLen) lies in [0, length).
void CheckSpan(Napi::Env env, const char* side, int64_t off, int64_t stride, int64_t blockLen,
               int64_t count, size_t length) {
  const int64_t last = off + (count - 1) * stride;
  const int64_t low = stride < 0 ? last : off;
  const int64_t high = (stride < 0 ? off : last) + blockLen;
  if (low < 0 || high > static_cast<int64_t>(length)) {
    ThrowRangeError(env, std::string(kCall) + ": " + side + " blocks span bytes [" + std::to_string(low) + ", " +
            std::to_string(high) + ") of a buffer of " + std::to_string(length) + " bytes");
  }
}

Napi::Value StridedCopy(const Napi::CallbackInfo& info) {
  Bytes src = GetBytes(info, 0, kCall, "src");
  const int64_t srcOff = GetInteger(info, 1, kCall, "srcOff", 0, kMaxSafeInteger);
  const int64_t srcStride = GetInteger(info, 2, kCall, "srcStride", -kMaxSafeInteger, kMaxSafeInteger);
  Bytes dst = GetBytes(info, 3, kCall, "dst");
  const int64_t dstOff = GetInteger(info, 4, kCall, "dstOff", 0, kMaxSafeInteger);
  const int64_t dstStride = GetInteger(info, 5, kCall, "dstStride", -kMaxSafeInteger, kMaxSafeInteger);
  const int64_t blockLen = GetInteger(info, 6, kCall, "blockLen", 0, kMaxSafeInteger);
  const int64_t count = GetInteger(info, 7, kCall, "count", 0, kMaxSafeInteger);
  if (count == 0 || blockLen == 0) return info.Env().Undefined();
  CheckSpan(info.Env(), "source", srcOff, srcStride, blockLen, count, src.length);
  CheckSpan(info.Env(), "destination", dstOff, dstStride, blockLen, count, dst.length);
  const uint8_t* s = src.data + srcOff;
  uint8_t* d = dst.data + dstOff;
  const size_t n = static_cast<size_t>(blockLen);
  // Fixed small sizes let the compiler inline the copy as one or two moves.
  switch (n) {
    case 4:
      for (int64_t i = 0; i < count; i++, s += srcStride, d += dstStride) std::memcpy(d, s, 4);
      break;
    case 8:
      for (int64_t i = 0; i < count; i++, s += srcStride, d += dstStride) std::memcpy(d, s, 8);
      break;
    case 16:
      for (int64_t i = 0; i < count; i++, s += srcStride, d += dstStride) std::memcpy(d, s, 16);
      break;
    default:
      for (int64_t i = 0; i < count; i++, s += srcStride, d += dstStride) std::memmove(d, s, n);
  }
  return info.Env().Undefined();
}

// One block, for the devices' payload copies (common/copy.ts). Its own export because a call's
// cost is most of a 4-8 KiB copy: node-addon-api keeps up to six arguments in place and
// allocates an array for more, and each argument is one more conversion (a 4 KiB copy into
// shared memory: ~0.2 us through stridedCopy's eight arguments, most of it the call).
Napi::Value CopyRange(const Napi::CallbackInfo& info) {
  constexpr const char* kCopy = "copyRange";
  Bytes src = GetBytes(info, 0, kCopy, "src");
  const int64_t srcOff = GetInteger(info, 1, kCopy, "srcOff", 0, kMaxSafeInteger);
  Bytes dst = GetBytes(info, 2, kCopy, "dst");
  const int64_t dstOff = GetInteger(info, 3, kCopy, "dstOff", 0, kMaxSafeInteger);
  const int64_t len = GetInteger(info, 4, kCopy, "len", 0, kMaxSafeInteger);
  if (srcOff + len > static_cast<int64_t>(src.length) || dstOff + len > static_cast<int64_t>(dst.length)) {
    ThrowRangeError(info.Env(), std::string(kCopy) + ": bytes [" + std::to_string(srcOff) + ", " +
                    std::to_string(srcOff + len) + ") of a source of " + std::to_string(src.length) + " to [" +
                    std::to_string(dstOff) + ", " + std::to_string(dstOff + len) + ") of a destination of " +
                    std::to_string(dst.length) + " bytes");
  }
  std::memmove(dst.data + dstOff, src.data + srcOff, static_cast<size_t>(len));
  return info.Env().Undefined();
}

}  // namespace

void RegisterStrided(Napi::Env env, Napi::Object exports) {
  exports.Set("stridedCopy", Napi::Function::New(env, StridedCopy, kCall));
  exports.Set("copyRange", Napi::Function::New(env, CopyRange, "copyRange"));
}

}  // namespace tsmpi
