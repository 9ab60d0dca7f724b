// crc32(buf, offset = 0, length = byteLength - offset, init = 0) -> unsigned 32-bit CRC
//
// Chainable as zlib's crc32: crc32(b, 0, b.length, crc32(a)) === crc32(a ++ b).
#include "crc32.h"

#include "args.h"
#include "errors.h"
#include "exports.h"

namespace tsmpi {

// Below 64 bytes the setup of four folding lanes costs more than the tables.
constexpr size_t kClmulMinLength = 64;

uint32_t Crc32Update(uint32_t state, const uint8_t* data, size_t length) {
  if (length >= kClmulMinLength && Crc32ClmulAvailable()) {
    size_t consumed = 0;
    state = Crc32Clmul(state, data, length, &consumed);
    data += consumed;
    length -= consumed;
  }
  return Crc32Table(state, data, length);
}

namespace {

Napi::Value Crc32(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Bytes bytes = GetBytes(info, 0, "crc32", "buf");
  // Omitted arguments are common (a whole buffer); not asking for them saves Node-API calls
  // that matter at small sizes.
  const size_t argc = info.Length();
  double byteLength = static_cast<double>(bytes.length);
  size_t offset = 0;
  if (argc > 1 && !info[1].IsUndefined()) {
    double o = GetNumber(info, 1, "crc32", "offset");
    if (!(o >= 0 && o <= byteLength) || o != static_cast<double>(static_cast<size_t>(o))) {
      ThrowRangeError(env, "crc32: offset " + FormatNumber(o) +
                               " must be an integer in [0, byteLength " +
                               FormatNumber(byteLength) + "]");
    }
    offset = static_cast<size_t>(o);
  }
  size_t length = bytes.length - offset;
  if (argc > 2 && !info[2].IsUndefined()) {
    double l = GetNumber(info, 2, "crc32", "length");
    if (!(l >= 0 && l <= static_cast<double>(length)) ||
        l != static_cast<double>(static_cast<size_t>(l))) {
      ThrowRangeError(env, "crc32: length " + FormatNumber(l) + " at offset " +
                               std::to_string(offset) + " must be an integer in [0, " +
                               std::to_string(length) + "] (byteLength " +
                               FormatNumber(byteLength) + ")");
    }
    length = static_cast<size_t>(l);
  }
  uint32_t init = argc > 3 ? static_cast<uint32_t>(GetOptionalInteger(
                                  info, 3, "crc32", "init", 0, 4294967295.0, 0))
                            : 0;
  if (length == 0) return Napi::Number::New(env, static_cast<double>(init));
  uint32_t crc = ~Crc32Update(~init, bytes.data + offset, length);
  return Napi::Number::New(env, static_cast<double>(crc));
}

}  // namespace

void RegisterCrc32(Napi::Env env, Napi::Object exports) {
  exports.Set("crc32", Napi::Function::New(env, Crc32, "crc32"));
}

}  // namespace tsmpi
