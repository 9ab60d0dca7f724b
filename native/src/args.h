// Argument decoding shared by all exports. Each helper validates one argument and throws
// TypeError/RangeError (code 'EINVAL') naming the call, the argument, its value and what was
// expected, so the export bodies read as the operation alone.
#ifndef TSMPI_ARGS_H_
#define TSMPI_ARGS_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsmpi {

// 2^53 - 1: the largest integer a double holds exactly; addresses and lengths stay below it.
constexpr double kMaxSafeInteger = 9007199254740991.0;

struct Bytes {
  uint8_t* data;
  size_t length;
};

// The bytes of a TypedArray, DataView (byteOffset applied), ArrayBuffer or SharedArrayBuffer.
// Asking V8 for the data pointer of a small on-heap typed array moves its storage off-heap first,
// so the pointer stays valid for as long as the buffer is alive.
Bytes GetBytes(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name);

// The cell cells[index] of an Int32Array over a SharedArrayBuffer (arguments `index` and
// `index + 1`), as Atomics.wait addresses it. Throws TypeError for any other array.
int32_t* GetSharedCell(const Napi::CallbackInfo& info, size_t index, const char* call);

// An iovec list: argument `arrayIndex` a Float64Array of (address, length) pairs, argument
// `arrayIndex + 1` how many pairs to use. Every entry is checked (integers in [0, 2^53 - 1])
// before the caller moves a byte; `total` is the sum of the lengths.
struct IovPairs {
  const double* pairs;
  size_t count;
  double total;
};
IovPairs GetIovPairs(const Napi::CallbackInfo& info, size_t arrayIndex, const char* call, const char* arrayName,
                     const char* countName);

// A number argument; TypeError if it is not a number.
double GetNumber(const Napi::CallbackInfo& info, size_t index, const char* call, const char* name);

// An integer argument in [min, max]; TypeError if not a number, RangeError otherwise.
int64_t GetInteger(const Napi::CallbackInfo& info, size_t index, const char* call,
                   const char* name, double min, double max);

// Like GetInteger, but `undefined` yields fallback.
int64_t GetOptionalInteger(const Napi::CallbackInfo& info, size_t index, const char* call,
                           const char* name, double min, double max, int64_t fallback);

// ECMAScript ToInt32 of a number (as Atomics.wait converts its value): NaN and infinities give 0,
// others are truncated modulo 2^32, so 0xffffffff and -1 are the same cell content.
int32_t ToInt32(double value);

// A string argument; TypeError if it is not a string.
std::string GetString(const Napi::CallbackInfo& info, size_t index, const char* call,
                      const char* name);

// A timeout in milliseconds as an absolute CLOCK_MONOTONIC deadline in nanoseconds, or -1 for
// none: negative values, +Infinity and NaN (as for Atomics.wait) mean no timeout.
int64_t GetDeadline(const Napi::CallbackInfo& info, size_t index, const char* call);

// The current CLOCK_MONOTONIC time in nanoseconds.
int64_t MonotonicNowNs();

// How a value looks in an error message: "undefined", "a string", "an Int32Array", ...
std::string DescribeValue(Napi::Value value);

// A number as an error message shows it: integers without exponent or fraction.
std::string FormatNumber(double value);

}  // namespace tsmpi

#endif  // TSMPI_ARGS_H_
