#pragma once
// Note [Which ranks did not arrive]: Gloo reports a timed-out collective
// without saying which peer it waited for. When a collective of sequence
// number S fails on a rank, that rank sets the store key
// "<group prefix>/timeout/S/<rank>" and waits a short grace for the others'
// keys: every rank that reached collective S fails too (its peer is missing,
// or a failed peer closed the connection) and sets its key; a rank that never
// reached it sets none. The ranks whose key is still absent after the grace
// are the ones that did not arrive. The price is paid only on failure: a
// collective that succeeds touches no store.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace gloo::rendezvous {
class Store;
}

namespace ember::distributed {

struct Arrivals {
  bool store_reachable = true;
  std::string store_error;  // why not, when it was not
  std::vector<int> missing;  // ranks that did not arrive, ascending
};

// `store` is the group's base store (not prefixed); keys go under `prefix`.
Arrivals find_missing_ranks(gloo::rendezvous::Store& store, const std::string& prefix,
                            uint64_t sequence, int rank, int size, std::chrono::milliseconds grace);

// Whether every key is set now, without waiting (ember's FileStore exactly;
// other stores through a wait of 1 ms).
bool store_has_keys(gloo::rendezvous::Store& store, const std::vector<std::string>& keys);

}  // namespace ember::distributed
