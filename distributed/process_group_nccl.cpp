#include "ember/distributed/process_group_nccl.h"

#include <cuda_runtime.h>
#include <gloo/rendezvous/store.h>
#include <nccl.h>

#include <cstring>
#include <mutex>

#include "ember/core/cuda/runtime.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::distributed {

namespace {

#define EMBER_NCCL_CHECK(call, op, rank)                                                         \
  do {                                                                                           \
    const ncclResult_t result_ = (call);                                                         \
    EMBER_CHECK(result_ == ncclSuccess, op, " (nccl, rank ", rank, "): ", #call, " failed: ",    \
                ncclGetErrorString(result_), " ", ncclGetLastError(nullptr));                    \
  } while (0)

#define EMBER_CUDA_RT_CHECK(call, op, rank)                                                      \
  do {                                                                                           \
    const cudaError_t error_ = (call);                                                           \
    EMBER_CHECK(error_ == cudaSuccess, op, " (nccl, rank ", rank, "): ", #call, " failed: ",     \
                cudaGetErrorString(error_));                                                     \
  } while (0)

ncclDataType_t nccl_dtype(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float: return ncclFloat32;
    case ScalarType::Double: return ncclFloat64;
    case ScalarType::Long: return ncclInt64;
    case ScalarType::Half: return ncclFloat16;
    case ScalarType::BFloat16: return ncclBfloat16;
    case ScalarType::Byte: return ncclUint8;
    case ScalarType::Char: return ncclInt8;
    case ScalarType::Int: return ncclInt32;
    default: break;
  }
  EMBER_INTERNAL_ASSERT(false, "dtype ", dtype, " passed the nccl backend's checks");
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::AVG: return ncclAvg;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
  }
  return ncclSum;
}

void check_cuda_tensor(const char* op, int rank, const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined(), op, " (nccl, rank ", rank, "): the ", what, " is an undefined tensor");
  EMBER_CHECK(t.device().type() == DeviceType::CUDA, op, " (nccl, rank ", rank,
              "): the nccl backend takes CUDA tensors; the ", what, " is a ", t.toString(),
              " (use the gloo backend for CPU tensors)");
  const auto dtype = t.scalar_type();
  EMBER_CHECK(dtype != ScalarType::Bool && dtype != ScalarType::Short, op, " (nccl, rank ", rank,
              "): unsupported dtype ", dtype, " of the ", what, " (", t.toString(),
              "); the nccl backend takes float16, bfloat16, float32, float64, uint8, int8, int32 "
              "and int64 (NCCL has no bool or int16)");
  EMBER_CHECK(t.is_contiguous(), op, " (nccl, rank ", rank, "): the ", what,
              " must be contiguous; got a non-contiguous ", t.toString(), " (call .contiguous())");
}

void check_single(const char* op, int rank, const std::vector<Tensor>& tensors) {
  EMBER_CHECK(tensors.size() == 1, op, " (nccl, rank ", rank,
              "): takes exactly one input tensor per call, got ", tensors.size());
  check_cuda_tensor(op, rank, tensors[0], "input");
}

// Makes `device` current for the scope.
class CurrentDevice {
 public:
  CurrentDevice(int device, const char* op, int rank) {
    EMBER_CUDA_RT_CHECK(cudaGetDevice(&previous_), op, rank);
    if (previous_ != device) EMBER_CUDA_RT_CHECK(cudaSetDevice(device), op, rank);
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

// A tensor's device index; an unindexed "cuda" is cuda:0 (core/device.h).
int device_index(const Tensor& t) { return t.device().has_index() ? device_index(t) : 0; }

// A Work complete on return: the collective is queued on the stream (Note
// [NCCL on ember's stream]).
std::shared_ptr<Work> queued_work() { return completed_work(); }

}  // namespace

struct ProcessGroupNCCL::Impl {
  ProcessGroupNCCL& group;
  Options options;
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::mutex mutex;
  ncclComm_t comm = nullptr;
  int device = -1;

  Impl(ProcessGroupNCCL& group, Options options) : group(group), options(std::move(options)) {}

  // The communicator, made at the first call on the tensor's device; every
  // later call must use that device.
  ncclComm_t communicator(const char* op, int tensor_device) {
    std::lock_guard<std::mutex> lock(mutex);
    if (comm != nullptr) {
      EMBER_CHECK(tensor_device == device, op, " (nccl, rank ", group.rank(), "): this group's "
                  "communicator is on cuda:", device, ", the tensor on cuda:", tensor_device,
                  " (one device per process)");
      return comm;
    }
    const std::string key = options.prefix + "/nccl_unique_id";
    ncclUniqueId id;
    if (group.rank() == 0) {
      EMBER_NCCL_CHECK(ncclGetUniqueId(&id), op, group.rank());
      store->set(key, std::vector<char>(id.internal, id.internal + sizeof(id.internal)));
    } else {
      const std::vector<char> bytes = store->get(key);
      EMBER_CHECK(bytes.size() == sizeof(id.internal), op, " (nccl, rank ", group.rank(),
                  "): the store holds an NCCL id of ", bytes.size(), " bytes, expected ",
                  sizeof(id.internal));
      std::memcpy(id.internal, bytes.data(), bytes.size());
    }
    CurrentDevice current(tensor_device, op, group.rank());
    EMBER_NCCL_CHECK(ncclCommInitRank(&comm, group.size(), id, group.rank()), op, group.rank());
    device = tensor_device;
    return comm;
  }
};

ProcessGroupNCCL::ProcessGroupNCCL(std::shared_ptr<gloo::rendezvous::Store> store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size, options.timeout), impl_(std::make_unique<Impl>(*this, std::move(options))) {
  EMBER_CHECK(store != nullptr, "ProcessGroupNCCL: no store");
  EMBER_CHECK(cuda::is_available(), "ProcessGroupNCCL (nccl, rank ", rank, "): no CUDA device is available");
  impl_->store = std::move(store);
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  if (impl_->comm != nullptr) ncclCommDestroy(impl_->comm);
}

std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>& tensors, ReduceOp op) {
  check_single("allreduce", rank(), tensors);
  Tensor& t = tensors[0];
  ncclComm_t comm = impl_->communicator("allreduce", device_index(t));
  next_sequence();
  CurrentDevice current(impl_->device, "allreduce", rank());
  EMBER_NCCL_CHECK(ncclGroupStart(), "allreduce", rank());
  EMBER_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()),
                                 nccl_dtype(t.scalar_type()), nccl_op(op), comm, cudaStreamLegacy),
                   "allreduce", rank());
  EMBER_NCCL_CHECK(ncclGroupEnd(), "allreduce", rank());
  return queued_work();
}

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>& tensors, int src) {
  check_single("broadcast", rank(), tensors);
  EMBER_CHECK(src >= 0 && src < size(), "broadcast (nccl, rank ", rank(), "): src ", src,
              " is not a rank of this group of size ", size());
  Tensor& t = tensors[0];
  ncclComm_t comm = impl_->communicator("broadcast", device_index(t));
  next_sequence();
  CurrentDevice current(impl_->device, "broadcast", rank());
  EMBER_NCCL_CHECK(ncclGroupStart(), "broadcast", rank());
  EMBER_NCCL_CHECK(ncclBroadcast(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()),
                                 nccl_dtype(t.scalar_type()), src, comm, cudaStreamLegacy),
                   "broadcast", rank());
  EMBER_NCCL_CHECK(ncclGroupEnd(), "broadcast", rank());
  return queued_work();
}

std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs) {
  check_single("allgather", rank(), inputs);
  const Tensor& input = inputs[0];
  EMBER_CHECK(outputs.size() == 1 && static_cast<int>(outputs[0].size()) == size(),
              "allgather (nccl, rank ", rank(), "): needs one list of one output per rank (", size(),
              ")");
  for (const Tensor& out : outputs[0]) {
    check_cuda_tensor("allgather", rank(), out, "output");
    EMBER_CHECK(out.scalar_type() == input.scalar_type() && out.numel() == input.numel() &&
                    out.device() == input.device(),
                "allgather (nccl, rank ", rank(), "): every output must have the input's dtype, "
                "element count and device; the input is a ", input.toString(), ", an output a ",
                out.toString());
  }
  ncclComm_t comm = impl_->communicator("allgather", device_index(input));
  next_sequence();
  // NCCL gathers into one buffer; copied out in stream order.
  Tensor gathered = empty({size() * input.numel()}, input.options());
  {
    CurrentDevice current(impl_->device, "allgather", rank());
    EMBER_NCCL_CHECK(ncclGroupStart(), "allgather", rank());
    EMBER_NCCL_CHECK(ncclAllGather(input.data_ptr(), gathered.data_ptr(), static_cast<size_t>(input.numel()),
                                   nccl_dtype(input.scalar_type()), comm, cudaStreamLegacy),
                     "allgather", rank());
    EMBER_NCCL_CHECK(ncclGroupEnd(), "allgather", rank());
  }
  for (int r = 0; r < size(); ++r)
    outputs[0][r].copy_(gathered.narrow(0, r * input.numel(), input.numel()).view(outputs[0][r].sizes()));
  return queued_work();
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier() {
  const int device = impl_->device >= 0 ? impl_->device : rank() % cuda::device_count();
  Tensor one = zeros({1}, TensorOptions().device(Device(DeviceType::CUDA, device)));
  std::vector<Tensor> tensors{one};
  allreduce(tensors);
  CurrentDevice current(device, "barrier", rank());
  EMBER_CUDA_RT_CHECK(cudaStreamSynchronize(cudaStreamLegacy), "barrier", rank());
  return queued_work();
}

}  // namespace ember::distributed
