#pragma once
// Note [Collective fingerprints]: under EMBER_DISTRIBUTED_DEBUG=1 every
// collective is first described in a fixed-size record (op, sequence number,
// dtype, shapes, the reduce op or broadcast's src) and the records are
// allgathered, so that every rank sees every rank's record and reports the
// same first mismatch, instead of hanging or reducing garbage. It costs one
// small allgather per collective: a debugging aid, off by default.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::distributed {

// Gloo's allgather needs equal sizes on every rank.
constexpr size_t kFingerprintBytes = 256;
using FingerprintRecord = std::array<char, kFingerprintBytes>;

// A description longer than the record keeps its head and a hash of the whole.
FingerprintRecord make_fingerprint_record(const std::string& description);
std::string fingerprint_text(const FingerprintRecord& record);

// The first rank whose record differs from rank 0's, if any.
std::optional<int> first_mismatch(const std::vector<FingerprintRecord>& records);

}  // namespace ember::distributed
