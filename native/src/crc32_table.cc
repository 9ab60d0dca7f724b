// Slicing-by-8: eight 256-entry tables let one step fold eight bytes into the register with
// eight independent lookups, instead of a dependent lookup per byte.
#include <cstring>

#include "crc32.h"

namespace tsmpi {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the slicing-by-8 step reads 8 bytes as a little-endian word");

constexpr uint32_t kPolynomial = 0xEDB88320u;

struct Tables {
  uint32_t t[8][256];
};

// Built at compile time: t[0] is the classic byte table, and t[k][b] is the register after b
// is followed by k zero bytes.
constexpr Tables MakeTables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ (kPolynomial & (0u - (c & 1u)));
    tables.t[0][b] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t prev = tables.t[k - 1][b];
      tables.t[k][b] = (prev >> 8) ^ tables.t[0][prev & 0xffu];
    }
  }
  return tables;
}

constexpr Tables kTables = MakeTables();

inline uint32_t Byte(uint32_t state, uint8_t b) {
  return kTables.t[0][(state ^ b) & 0xffu] ^ (state >> 8);
}

}  // namespace

uint32_t Crc32Table(uint32_t state, const uint8_t* data, size_t length) {
  const auto& t = kTables.t;
  while (length >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);  // unaligned-safe; compiles to one load
    uint32_t lo = static_cast<uint32_t>(word) ^ state;
    uint32_t hi = static_cast<uint32_t>(word >> 32);
    state = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^
            t[4][lo >> 24] ^ t[3][hi & 0xffu] ^ t[2][(hi >> 8) & 0xffu] ^
            t[1][(hi >> 16) & 0xffu] ^ t[0][hi >> 24];
    data += 8;
    length -= 8;
  }
  while (length-- > 0) state = Byte(state, *data++);
  return state;
}

}  // namespace tsmpi
