// CRC-32 by folding with carry-less multiplication (Gopal et al., "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ Instruction", Intel, 2009), in the bit-reflected domain.
//
// Four 128-bit accumulators run over the data 64 bytes at a time: each step multiplies an
// accumulator's two halves by x^(512+32)-style constants (mod P) and adds the next 64 bytes, which
// keeps the whole message congruent mod P while shortening it. The four then fold into one, and
// single 16-byte folds follow. What is left is a 16-byte message with the same CRC register as
// everything consumed, which the table code finishes (cheaper to get right than a Barrett step,
// and only 16 bytes).
#include "crc32.h"

#if defined(__x86_64__)

#include <immintrin.h>

namespace tsmpi {

namespace {

// The constants of the Linux kernel's crc32-pclmul and zlib's crc32_simd for polynomial
// 0x04C11DB7, bit-reflected: low lane multiplies the low 64 bits, high lane the high 64 bits.
constexpr long long kFold4Low = 0x154442bd4;   // fold across 512 bits
constexpr long long kFold4High = 0x1c6e41596;
constexpr long long kFold1Low = 0x1751997d0;   // fold across 128 bits
constexpr long long kFold1High = 0x0ccaa009e;

__attribute__((target("pclmul"))) inline __m128i Fold(__m128i acc, __m128i k, __m128i next) {
  __m128i low = _mm_clmulepi64_si128(acc, k, 0x00);
  __m128i high = _mm_clmulepi64_si128(acc, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

}  // namespace

bool Crc32ClmulAvailable() {
  static const bool available = __builtin_cpu_supports("pclmul");
  return available;
}

__attribute__((target("pclmul")))
uint32_t Crc32Clmul(uint32_t state, const uint8_t* data, size_t length, size_t* consumed) {
  const size_t start = length;
  const __m128i fold4 = _mm_set_epi64x(kFold4High, kFold4Low);
  const __m128i fold1 = _mm_set_epi64x(kFold1High, kFold1Low);

  // The register enters as the first four message bytes XOR the state: a CRC from state s over
  // M equals a CRC from 0 over M with s added to its first 32 bits.
  __m128i a0 = _mm_xor_si128(Load(data), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i a1 = Load(data + 16);
  __m128i a2 = Load(data + 32);
  __m128i a3 = Load(data + 48);
  data += 64;
  length -= 64;

  while (length >= 64) {
    a0 = Fold(a0, fold4, Load(data));
    a1 = Fold(a1, fold4, Load(data + 16));
    a2 = Fold(a2, fold4, Load(data + 32));
    a3 = Fold(a3, fold4, Load(data + 48));
    data += 64;
    length -= 64;
  }

  a0 = Fold(a0, fold1, a1);
  a0 = Fold(a0, fold1, a2);
  a0 = Fold(a0, fold1, a3);
  while (length >= 16) {
    a0 = Fold(a0, fold1, Load(data));
    data += 16;
    length -= 16;
  }

  alignas(16) uint8_t rest[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(rest), a0);
  *consumed = start - length;
  return Crc32Table(0, rest, sizeof rest);
}

}  // namespace tsmpi

#else  // not x86-64: tables only

namespace tsmpi {

bool Crc32ClmulAvailable() { return false; }

uint32_t Crc32Clmul(uint32_t state, const uint8_t*, size_t, size_t* consumed) {
  *consumed = 0;
  return state;
}

}  // namespace tsmpi

#endif
