// The one place that makes the env:// store: rank 0 serves it.
#include "ember/distributed/init_methods.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed {

std::shared_ptr<gloo::rendezvous::Store> make_env_store(const EnvConfig& config,
                                                        std::chrono::milliseconds timeout) {
  return std::make_shared<TCPStore>(config.master_addr, config.master_port, config.world_size,
                                    config.rank == 0, timeout);
}

}  // namespace ember::distributed
