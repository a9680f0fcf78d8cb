#include "ember/distributed/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <sstream>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/fingerprint.h"
#include "ember/distributed/missing_ranks.h"

namespace ember::distributed {

namespace {

enum class Kind { ALLREDUCE, BROADCAST, ALLGATHER, BARRIER };

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::ALLREDUCE: return "allreduce";
    case Kind::BROADCAST: return "broadcast";
    case Kind::ALLGATHER: return "allgather";
    case Kind::BARRIER: return "barrier";
  }
  return "?";
}

// One queued collective: the Work the caller holds, and what the worker needs.
struct GlooWork : Work {
  Kind kind = Kind::BARRIER;
  uint64_t sequence = 0;
  ReduceOp op = ReduceOp::SUM;
  int src = 0;
  Tensor tensor;                // allreduce, broadcast: in place; allgather: the input
  std::vector<Tensor> outputs;  // allgather: one per rank

  int64_t numel() const { return tensor.defined() ? tensor.numel() : 0; }
  std::string label() const { return std::string(kind_name(kind)) + " #" + std::to_string(sequence); }
  std::string describe() const {
    std::ostringstream os;
    os << label();
    if (kind == Kind::ALLREDUCE) os << " " << reduce_op_name(op);
    if (kind == Kind::BROADCAST) os << " src=" << src;
    if (tensor.defined()) os << " " << tensor.scalar_type() << " " << tensor.sizes();
    if (kind == Kind::ALLGATHER) os << " into " << outputs.size() << " outputs";
    return os.str();
  }
};

void check_cpu_tensor(const char* op, int rank, const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined(), op, " (gloo, rank ", rank, "): the ", what, " is an undefined tensor");
  EMBER_CHECK(t.device().type() == DeviceType::CPU, op, " (gloo, rank ", rank,
              "): the gloo backend takes CPU tensors; the ", what, " is a ", t.toString(),
              " (use the nccl backend for CUDA tensors)");
  EMBER_CHECK(t.scalar_type() != ScalarType::Bool, op, " (gloo, rank ", rank,
              "): unsupported dtype bool of the ", what, " (", t.toString(),
              "); the gloo backend takes every dtype but bool");
  // c10d's gloo backend refuses them too; a silent copy would hide a copy back.
  EMBER_CHECK(t.is_contiguous(), op, " (gloo, rank ", rank, "): the ", what,
              " must be contiguous; got a non-contiguous ", t.toString(), " (call .contiguous())");
}

void check_single(const char* op, int rank, const std::vector<Tensor>& tensors, const char* what) {
  EMBER_CHECK(tensors.size() == 1, op, " (gloo, rank ", rank, "): takes exactly one ", what,
              " tensor per call, got ", tensors.size());
  check_cpu_tensor(op, rank, tensors[0], what);
}

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return &gloo::sum<T>;
    case ReduceOp::PRODUCT: return &gloo::product<T>;
    case ReduceOp::MIN: return &gloo::min<T>;
    case ReduceOp::MAX: return &gloo::max<T>;
  }
  return nullptr;
}

// AVG is SUM divided by the world size (Gloo has no average); int64 rounds
// toward zero, as C++ division does.
template <typename T>
void divide(T* data, int64_t n, int size) {
  for (int64_t i = 0; i < n; ++i) data[i] /= static_cast<T>(size);
}

// t (float32, float64 or int64) reduced in place across the ranks.
template <typename T>
void run_allreduce(const std::shared_ptr<gloo::Context>& context, const Tensor& t, ReduceOp op,
                   uint32_t tag, std::chrono::milliseconds timeout) {
  T* data = static_cast<T*>(t.data_ptr());
  const auto n = static_cast<size_t>(t.numel());
  gloo::AllreduceOptions opts(context);
  opts.setOutput<T>(data, n);
  opts.setReduceFunction(reduce_fn<T>(op));
  opts.setTag(tag);
  opts.setTimeout(timeout);
  gloo::allreduce(opts);
  if (op == ReduceOp::AVG) divide(data, t.numel(), context->size);
}

// Any dtype: the root's bytes.
void run_broadcast(const std::shared_ptr<gloo::Context>& context, GlooWork& work,
                   std::chrono::milliseconds timeout) {
  gloo::BroadcastOptions opts(context);
  opts.setOutput<uint8_t>(static_cast<uint8_t*>(work.tensor.data_ptr()), work.tensor.nbytes());
  opts.setRoot(work.src);
  opts.setTag(static_cast<uint32_t>(work.sequence));
  opts.setTimeout(timeout);
  gloo::broadcast(opts);
}

// Allgathers raw bytes: `in` of n bytes from every rank into `out` of size*n.
void allgather_bytes(const std::shared_ptr<gloo::Context>& context, const void* in, void* out,
                     size_t n, uint32_t tag, std::chrono::milliseconds timeout) {
  gloo::AllgatherOptions opts(context);
  opts.setInput<char>(const_cast<char*>(static_cast<const char*>(in)), n);
  opts.setOutput<char>(static_cast<char*>(out), n * static_cast<size_t>(context->size));
  opts.setTag(tag);
  opts.setTimeout(timeout);
  gloo::allgather(opts);
}

template <typename F>
void dispatch_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    case ScalarType::Long: f(int64_t{}); return;
    default: EMBER_INTERNAL_ASSERT(false, "dtype ", dtype, " passed the gloo backend's checks");
  }
}

}  // namespace

struct ProcessGroupGloo::Impl {
  ProcessGroupGloo& group;
  Options options;
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::unique_ptr<gloo::rendezvous::PrefixStore> prefix_store;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;

  std::mutex mutex;
  std::condition_variable queue_cv;
  std::deque<std::shared_ptr<GlooWork>> queue;
  bool stopping = false;
  // Set by the first failed collective; later calls fail with it (the peers'
  // connections are in an unknown state after a Gloo error).
  std::string broken;
  std::thread worker;

  Impl(ProcessGroupGloo& group, Options opts) : group(group), options(std::move(opts)) {}

  void check_usable(const char* op) {
    std::lock_guard<std::mutex> lock(mutex);
    EMBER_CHECK(broken.empty(), op, " (gloo, rank ", group.rank(),
                "): the process group is unusable after an earlier collective failed: ", broken);
  }

  std::shared_ptr<Work> enqueue(std::shared_ptr<GlooWork> work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      work->sequence = group.next_sequence();
      queue.push_back(work);
    }
    queue_cv.notify_one();
    return work;
  }

  void loop() {
    while (true) {
      std::shared_ptr<GlooWork> work;
      std::string failed_before;
      {
        std::unique_lock<std::mutex> lock(mutex);
        queue_cv.wait(lock, [this] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and everything queued has run
        work = std::move(queue.front());
        queue.pop_front();
        failed_before = broken;
      }
      if (!failed_before.empty()) {
        work->finish(std::make_exception_ptr(Error(
            work->label() + " (gloo, rank " + std::to_string(group.rank()) +
            "): not run: the process group is unusable after an earlier collective failed: " +
            failed_before)));
        continue;
      }
      run(*work);
    }
  }

  void run(GlooWork& work) {
    work.mark_started();
    const auto start = std::chrono::steady_clock::now();
    try {
      if (options.debug) compare_fingerprints(work);
      execute(work);
      work.finish();
    } catch (const Error&) {
      work.finish(std::current_exception());
    } catch (const std::exception& e) {
      // Gloo's errors: a timeout, or a peer that closed its connection.
      const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - start);
      const std::string message = describe_failure(work, e.what(), elapsed);
      {
        std::lock_guard<std::mutex> lock(mutex);
        broken = message;
      }
      work.finish(std::make_exception_ptr(Error(message)));
    }
  }

  void execute(GlooWork& work) {
    const auto timeout = group.timeout();
    switch (work.kind) {
      case Kind::ALLREDUCE: {
        if (work.tensor.numel() == 0) return;
        const auto tag = static_cast<uint32_t>(work.sequence);
        const ScalarType dtype = work.tensor.scalar_type();
        // The 16-bit floats and the narrow integers reduce in their compute dtype (float32,
        // int64) and round (or wrap) once on the way back, as ember's kernels do.
        const Tensor reduced = compute_dtype(dtype) == dtype ? work.tensor : work.tensor.to(compute_dtype(dtype));
        dispatch_dtype(reduced.scalar_type(), [&](auto t) {
          run_allreduce<decltype(t)>(context, reduced, work.op, tag, timeout);
        });
        if (reduced.scalar_type() != dtype) work.tensor.copy_(reduced);
        return;
      }
      case Kind::BROADCAST:
        if (work.tensor.numel() == 0) return;
        run_broadcast(context, work, timeout);
        return;
      case Kind::ALLGATHER: {
        const size_t n = work.tensor.nbytes();
        if (n == 0) return;
        // Gloo gathers into one buffer; the outputs may lie anywhere.
        std::vector<char> gathered(n * static_cast<size_t>(group.size()));
        allgather_bytes(context, work.tensor.data_ptr(), gathered.data(), n,
                        static_cast<uint32_t>(work.sequence), timeout);
        for (int r = 0; r < group.size(); ++r)
          std::memcpy(work.outputs[r].data_ptr(), gathered.data() + n * r, n);
        return;
      }
      case Kind::BARRIER: {
        gloo::BarrierOptions opts(context);
        opts.setTag(static_cast<uint32_t>(work.sequence));
        opts.setTimeout(timeout);
        gloo::barrier(opts);
        return;
      }
    }
  }

  void compare_fingerprints(GlooWork& work) {
    const FingerprintRecord mine = make_fingerprint_record(work.describe());
    std::vector<FingerprintRecord> all(static_cast<size_t>(group.size()));
    // Its own tag space (the high bit), apart from the collectives' tags.
    allgather_bytes(context, mine.data(), all.data(), kFingerprintBytes,
                    static_cast<uint32_t>(work.sequence) | 0x80000000u, group.timeout());
    const auto differing = first_mismatch(all);
    if (!differing) return;
    EMBER_ERROR(work.label(), " (gloo, rank ", group.rank(),
                "): the ranks issued different collectives (EMBER_DISTRIBUTED_DEBUG=1): rank ",
                *differing, " issued '", fingerprint_text(all[*differing]), "' where rank 0 issued '",
                fingerprint_text(all[0]), "'; this rank issued '", fingerprint_text(mine), "'");
  }

  std::string describe_failure(const GlooWork& work, const std::string& gloo_message,
                               std::chrono::milliseconds elapsed) {
    std::string lower = gloo_message;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool timed_out = lower.find("timed out") != std::string::npos ||
                           lower.find("timeout") != std::string::npos;
    // A rank late by less than the grace still counts as arrived.
    const auto grace = std::clamp(group.timeout() / 2, std::chrono::milliseconds(1000),
                                  std::chrono::milliseconds(10000));
    const Arrivals arrivals = find_missing_ranks(*store, options.prefix, work.sequence, group.rank(),
                                                 group.size(), grace);
    std::ostringstream os;
    os << work.label() << " (gloo, rank " << group.rank() << " of " << group.size() << "): ";
    if (timed_out)
      os << "timed out after " << elapsed.count() << " ms (timeout " << group.timeout().count() << " ms)";
    else
      os << "failed after " << elapsed.count() << " ms";
    os << "; " << work.numel() << " elements";
    if (work.tensor.defined()) os << " of " << work.tensor.scalar_type();
    if (work.kind == Kind::ALLREDUCE) os << ", " << reduce_op_name(work.op);
    if (work.kind == Kind::BROADCAST) os << ", src " << work.src;
    if (!arrivals.store_reachable) {
      os << "; the store could not be reached to find which ranks did not arrive ("
         << arrivals.store_error << ")";
    } else if (arrivals.missing.empty()) {
      os << "; every rank reached this collective";
    } else {
      os << "; ranks that did not arrive: ";
      for (size_t i = 0; i < arrivals.missing.size(); ++i) os << (i ? ", " : "") << arrivals.missing[i];
      os << " (slow, stuck, dead, or issuing other collectives)";
    }
    os << "; the process group is unusable now. Gloo: " << gloo_message;
    return os.str();
  }
};

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<gloo::rendezvous::Store> store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size, options.timeout), impl_(std::make_unique<Impl>(*this, std::move(options))) {
  EMBER_CHECK(store != nullptr, "ProcessGroupGloo: no store");
  Impl& impl = *impl_;
  impl.store = std::move(store);
  impl.prefix_store = std::make_unique<gloo::rendezvous::PrefixStore>(impl.options.prefix, *impl.store);
  try {
    gloo::transport::tcp::attr attr;
    if (!impl.options.iface.empty())
      attr.iface = impl.options.iface;
    else
      attr.hostname = impl.options.hostname;
    impl.device = gloo::transport::tcp::CreateDevice(attr);
    impl.context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    impl.context->setTimeout(timeout());
    impl.context->connectFullMesh(*impl.prefix_store, impl.device);
  } catch (const std::exception& e) {
    EMBER_ERROR("ProcessGroupGloo (rank ", rank, " of ", size, ", listening on ",
                impl.options.iface.empty() ? impl.options.hostname : "interface " + impl.options.iface,
                "): connecting to the other ranks failed within ", timeout().count(), " ms: ", e.what());
  }
  impl.worker = std::thread([&impl] { impl.loop(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->queue_cv.notify_one();
  if (impl_->worker.joinable()) impl_->worker.join();
}

bool ProcessGroupGloo::debug() const { return impl_->options.debug; }

std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors, ReduceOp op) {
  impl_->check_usable("allreduce");
  check_single("allreduce", rank(), tensors, "input");
  auto work = std::make_shared<GlooWork>();
  work->kind = Kind::ALLREDUCE;
  work->op = op;
  work->tensor = tensors[0];
  return impl_->enqueue(std::move(work));
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors, int src) {
  impl_->check_usable("broadcast");
  check_single("broadcast", rank(), tensors, "input");
  EMBER_CHECK(src >= 0 && src < size(), "broadcast (gloo, rank ", rank(), "): src ", src,
              " is not a rank of this group of size ", size());
  auto work = std::make_shared<GlooWork>();
  work->kind = Kind::BROADCAST;
  work->src = src;
  work->tensor = tensors[0];
  return impl_->enqueue(std::move(work));
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs) {
  impl_->check_usable("allgather");
  check_single("allgather", rank(), inputs, "input");
  EMBER_CHECK(outputs.size() == 1, "allgather (gloo, rank ", rank(),
              "): takes one list of outputs (one per rank), got ", outputs.size(), " lists");
  const Tensor& input = inputs[0];
  EMBER_CHECK(static_cast<int>(outputs[0].size()) == size(), "allgather (gloo, rank ", rank(),
              "): needs one output per rank (", size(), "), got ", outputs[0].size());
  for (const Tensor& out : outputs[0]) {
    check_cpu_tensor("allgather", rank(), out, "output");
    EMBER_CHECK(out.scalar_type() == input.scalar_type() && out.numel() == input.numel(),
                "allgather (gloo, rank ", rank(), "): every output must have the input's dtype and "
                "element count; the input is a ", input.toString(), ", an output a ", out.toString());
  }
  auto work = std::make_shared<GlooWork>();
  work->kind = Kind::ALLGATHER;
  work->tensor = input;
  work->outputs = outputs[0];
  return impl_->enqueue(std::move(work));
}

std::shared_ptr<Work> ProcessGroupGloo::barrier() {
  impl_->check_usable("barrier");
  auto work = std::make_shared<GlooWork>();
  work->kind = Kind::BARRIER;
  return impl_->enqueue(std::move(work));
}

}  // namespace ember::distributed
