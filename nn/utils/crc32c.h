#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord framing
// uses it. crc32c("123456789") == 0xE3069283.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ember::utils {

// Continues a CRC: crc32c(b, crc32c(a)) == crc32c(a + b). Start with 0.
uint32_t crc32c(const void* data, size_t size, uint32_t crc);
inline uint32_t crc32c(std::string_view bytes, uint32_t crc = 0) {
  return crc32c(bytes.data(), bytes.size(), crc);
}

// TFRecord stores CRCs masked, so a CRC of data that holds CRCs stays robust.
inline uint32_t mask_crc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace ember::utils
