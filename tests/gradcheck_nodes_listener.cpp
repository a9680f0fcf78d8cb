// With EMBER_GRADCHECK_NODES_FILE set, ember_tests writes the names of the
// nodes its gradchecks reached to that file, one a line, when the run ends;
// scripts/gradcheck-coverage.sh compares them with docs/derivatives.md. Unset,
// nothing is recorded.
// Catch2 v2 declares its listener base class only with this set.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "ember/autograd/gradcheck.h"

namespace {

const char* nodes_file() { return std::getenv("EMBER_GRADCHECK_NODES_FILE"); }

struct GradcheckNodesListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(const Catch::TestRunInfo&) override {
    if (nodes_file()) ember::autograd::set_record_checked_nodes(true);
  }
  void testRunEnded(const Catch::TestRunStats&) override {
    const char* path = nodes_file();
    if (!path) return;
    std::ofstream out(path, std::ios::trunc);
    for (const std::string& name : ember::autograd::checked_node_names()) out << name << '\n';
    if (!out) std::cerr << "gradcheck nodes: cannot write " << path << '\n';
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(GradcheckNodesListener)
