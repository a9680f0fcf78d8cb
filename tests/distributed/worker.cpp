// One rank of a collectives scenario (spawn_ranks.h starts them; rank_main.h
// says how it reports). Joins the group through file://STORE_DIR (env:// in
// the scenario "env").
#include <ember/distributed/distributed.h>
#include <ember/ember.h>

#include "rank_main.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <thread>

namespace dist = ember::distributed;
using ember::ScalarType;
using ember::Tensor;

using ember_test::CheckFailed;
using ember_test::init;
using ember_test::rank;
using ember_test::store_dir;
using ember_test::world;

namespace {

constexpr int64_t kN = 5;

// Rank r's values: (r+1)·(i+1) for i in [0, kN).
Tensor rank_values(int r, ScalarType dtype) {
  return ember::arange(1, kN + 1, ember::TensorOptions().dtype(ScalarType::Double))
      .mul(static_cast<double>(r + 1))
      .to(dtype);
}

// The reduce op's closed form over ranks 0..world-1 at element i.
double expected(dist::ReduceOp op, int64_t i, ScalarType dtype) {
  const double x = static_cast<double>(i + 1);
  double sum = 0, product = 1;
  for (int r = 0; r < world; ++r) {
    sum += (r + 1) * x;
    product *= (r + 1) * x;
  }
  switch (op) {
    case dist::ReduceOp::SUM: return sum;
    case dist::ReduceOp::AVG:
      return dtype == ScalarType::Long ? std::trunc(sum / world) : sum / world;
    case dist::ReduceOp::PRODUCT: return product;
    case dist::ReduceOp::MIN: return x;
    case dist::ReduceOp::MAX: return world * x;
  }
  return 0;
}

void check_values(const Tensor& t, const std::function<double(int64_t)>& want, const std::string& what) {
  const Tensor d = t.to(ScalarType::Double).contiguous();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double got = d.data_ptr<double>()[i];
    CHECK_THAT(got == want(i), what + ": element " + std::to_string(i) + " is " + std::to_string(got) +
                                   ", want " + std::to_string(want(i)));
  }
}

void allreduce_ops() {
  init();
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Long})
    for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::PRODUCT,
                    dist::ReduceOp::MIN, dist::ReduceOp::MAX}) {
      Tensor t = rank_values(rank, dtype);
      dist::all_reduce(t, op);
      CHECK_THAT(t.scalar_type() == dtype, "dtype changed");
      std::ostringstream what;
      what << "allreduce " << dist::reduce_op_name(op) << " " << dtype;
      check_values(t, [&](int64_t i) { return expected(op, i, dtype); }, what.str());
    }
  CHECK_THAT(dist::default_group()->sequence_number() == 15, "15 collectives issued");
}

// The 16-bit floats and the narrow integers: reduced in float32 (int64) and rounded (wrapped)
// once, so each result is the closed form in that dtype; PRODUCT of the integers would wrap
// and is left out. (Broadcast and all_gather, which move bytes, take them in their own
// scenarios.)
double in_dtype(double v, ScalarType dtype) {
  return ember::full({}, v, ember::TensorOptions().dtype(ScalarType::Double)).to(dtype).item<double>();
}

void allreduce_narrow_dtypes() {
  init();
  for (ScalarType dtype : {ScalarType::BFloat16, ScalarType::Half, ScalarType::Byte,
                           ScalarType::Char, ScalarType::Short, ScalarType::Int}) {
    const bool floating = ember::is_floating_point(dtype);
    for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::PRODUCT,
                    dist::ReduceOp::MIN, dist::ReduceOp::MAX}) {
      if (op == dist::ReduceOp::PRODUCT && !floating) continue;
      Tensor t = rank_values(rank, dtype);
      dist::all_reduce(t, op);
      CHECK_THAT(t.scalar_type() == dtype, "dtype changed");
      std::ostringstream what;
      what << "allreduce " << dist::reduce_op_name(op) << " " << dtype;
      const ScalarType closed_form = floating ? ScalarType::Double : ScalarType::Long;
      check_values(t, [&](int64_t i) { return in_dtype(expected(op, i, closed_form), dtype); },
                   what.str());
    }
  }
}

void broadcast_from_1() {
  init();
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Long, ScalarType::BFloat16}) {
    Tensor t = rank_values(rank, dtype).reshape({1, kN});
    dist::broadcast(t, 1);
    check_values(t, [](int64_t i) { return 2.0 * (i + 1); }, "broadcast from 1");
  }
}

void all_gather() {
  init();
  for (ScalarType dtype : {ScalarType::Double, ScalarType::Short}) {
    Tensor mine = rank_values(rank, dtype);
    std::vector<Tensor> out;
    for (int r = 0; r < world; ++r) out.push_back(ember::zeros({kN}, ember::TensorOptions().dtype(dtype)));
    dist::all_gather(out, mine);
    for (int r = 0; r < world; ++r)
      check_values(out[r], [&](int64_t i) { return (r + 1.0) * (i + 1); }, "all_gather from rank " + std::to_string(r));
  }
}

void barrier() {
  init();
  // Rank 0 is late: nobody passes the barrier before it arrives.
  const auto start = std::chrono::steady_clock::now();
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  dist::barrier();
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK_THAT(waited >= std::chrono::milliseconds(250), "passed the barrier before rank 0 arrived");
}

// Several allreduces in flight, waited for in reverse order; they ran in order.
// Rank 1 issues its own late: rank 0's calls return at once all the same (a
// DDP reducer issues them from inside backward).
void async_reverse() {
  init();
  constexpr int kWorks = 4;
  std::vector<Tensor> tensors;
  for (int k = 0; k < kWorks; ++k)
    tensors.push_back(rank_values(rank, ScalarType::Float).mul(static_cast<double>(k + 1)));
  if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::shared_ptr<dist::Work>> works;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kWorks; ++k)
    works.push_back(dist::all_reduce(tensors[k], dist::ReduceOp::SUM, /*async_op=*/true));
  if (rank == 0) {
    const auto issuing = std::chrono::steady_clock::now() - start;
    CHECK_THAT(issuing < std::chrono::milliseconds(250), "issuing 4 allreduces waited for the peer");
    CHECK_THAT(!works[0]->is_completed(), "an allreduce completed before rank 1 issued it");
  }
  for (int k = kWorks - 1; k >= 0; --k) {
    works[k]->wait();
    CHECK_THAT(works[k]->is_completed(), "completed after wait");
    check_values(tensors[k], [&](int64_t i) { return (k + 1.0) * expected(dist::ReduceOp::SUM, i, ScalarType::Float); },
                 "async allreduce " + std::to_string(k));
  }
  for (int k = 1; k < kWorks; ++k)
    CHECK_THAT(works[k - 1]->end_ns() <= works[k]->start_ns(), "the collectives ran in the order issued");
  for (int k = 0; k < kWorks; ++k) CHECK_THAT(works[k]->start_ns() <= works[k]->end_ns(), "start before end");
}

// The last rank never reaches the allreduce; the others report it by rank.
void timeout() {
  init(std::chrono::seconds(2));
  const int sleeper = world - 1;
  if (rank == sleeper) {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    return;
  }
  Tensor t = rank_values(rank, ScalarType::Float);
  try {
    dist::all_reduce(t);
    throw CheckFailed("the allreduce did not time out");
  } catch (const ember::Error& e) {
    std::cout << "timeout error: " << e.what() << std::endl;
  }
  try {
    dist::barrier();
    throw CheckFailed("a collective after the timeout did not fail");
  } catch (const ember::Error& e) {
    std::cout << "later error: " << e.what() << std::endl;
  }
}

// The last rank exits after joining, without a word: the others fail at once
// (a closed connection, not the 4 s timeout) and name it after the grace (2 s).
void dead_rank() {
  // A long timeout: the error must come from the closed connection, long
  // before it (the missing-rank grace is half of it, at most 10 s).
  const auto timeout = std::chrono::seconds(24);
  init(timeout);
  dist::barrier();  // every connection is up before one rank goes away
  if (rank == world - 1) {
    std::cout << "OK dead_rank" << std::endl;
    std::_Exit(0);
  }
  Tensor t = rank_values(rank, ScalarType::Double);
  const auto start = std::chrono::steady_clock::now();
  try {
    dist::all_reduce(t);
    throw CheckFailed("the allreduce with a dead peer did not fail");
  } catch (const ember::Error& e) {
    std::cout << "dead peer error: " << e.what() << std::endl;
  }
  CHECK_THAT(std::chrono::steady_clock::now() - start < timeout,
             "waited for the timeout instead of noticing the closed connection");
}

// Rank 1 passes another shape; under EMBER_DISTRIBUTED_DEBUG=1 every rank says so.
void debug_mismatch() {
  init();
  Tensor t = ember::ones({rank == 1 ? 3 : 2});
  try {
    dist::all_reduce(t);
    throw CheckFailed("the mismatched allreduce ran");
  } catch (const ember::Error& e) {
    std::cout << "mismatch error: " << e.what() << std::endl;
  }
}

// env://, as ember-run sets it (the test passes MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE).
void env_rendezvous() {
  dist::init_process_group("gloo");
  CHECK_THAT(dist::get_rank() == rank && dist::get_world_size() == world, "rank and world size from the environment");
  Tensor t = rank_values(rank, ScalarType::Float);
  dist::all_reduce(t);
  check_values(t, [](int64_t i) { return expected(dist::ReduceOp::SUM, i, ScalarType::Float); }, "env:// allreduce");
}

}  // namespace

int main(int argc, char** argv) {
  return ember_test::rank_main(
      argc, argv,
      {{"allreduce", allreduce_ops}, {"allreduce_narrow", allreduce_narrow_dtypes}, {"broadcast", broadcast_from_1}, {"allgather", all_gather},
       {"barrier", barrier}, {"async", async_reverse}, {"timeout", timeout},
       {"debug_mismatch", debug_mismatch}, {"dead_rank", dead_rank}, {"env", env_rendezvous}});
}
