// CRC-32 of IEEE 802.3 (reflected, polynomial 0xEDB88320): the CRC of zlib, gzip, PNG and
// Node's zlib.crc32. `state` below is the raw register: a CRC starts from ~init and the result is
// ~state, which the export does, so callers chain with the finished value as zlib's crc32 does.
#ifndef TSMPI_CRC32_H_
#define TSMPI_CRC32_H_

#include <cstddef>
#include <cstdint>

namespace tsmpi {

// Slicing-by-8 tables: any length, any alignment.
uint32_t Crc32Table(uint32_t state, const uint8_t* data, size_t length);

// Carry-less multiplication folding (PCLMULQDQ), for lengths of at least 64 bytes on a CPU that
// has it. Consumes a multiple of 16 bytes (*consumed); the caller finishes the rest.
bool Crc32ClmulAvailable();
uint32_t Crc32Clmul(uint32_t state, const uint8_t* data, size_t length, size_t* consumed);

// The fastest available: folding for the bulk, tables for the rest.
uint32_t Crc32Update(uint32_t state, const uint8_t* data, size_t length);

}  // namespace tsmpi

#endif  // TSMPI_CRC32_H_
