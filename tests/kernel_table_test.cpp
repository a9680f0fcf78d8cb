// The kernel tables (kernels/common/kernel_table.h, Note [Kernel tables]): the
// lookup, what each backend registers, and the dtype sets of the elementwise
// and reduce op tables, of the scan, sort, indexing, bucketing, cross-entropy,
// copy, factory and random kernels and of the nn families as the CPU kernels apply them
// (tests/cuda/kernel_table_test.cpp holds the CUDA kernels to the same sets).
#include <catch2/catch.hpp>
#include <ember/kernels/common/kernel_registry.h>

#include <cmath>
#include <string>
#include <utility>

#include "bucketing_dtype_check.h"
#include "copy_dtype_check.h"
#include "elementwise_dtype_check.h"
#include "factory_dtype_check.h"
#include "indexing_dtype_check.h"
#include "linalg_dtype_check.h"
#include "matmul_dtype_check.h"
#include "nn_kernels_dtype_check.h"
#include "random_dtype_check.h"
#include "reduce_dtype_check.h"
#include "scan_dtype_check.h"
#include "sort_dtype_check.h"

using namespace ember;
using Catch::Contains;

namespace {
void set_to_seven(int& x) { x = 7; }

#ifdef EMBER_WITH_CUDA
constexpr bool kWithCuda = true;
#else
constexpr bool kWithCuda = false;
#endif
}  // namespace

TEST_CASE("kernel table: a slot calls the kernel of the tensor's device type and, without one, "
          "raises an Error naming the op and the device",
          "[kernel_table]") {
  Kernel<void(int&)> slot;
  CHECK_FALSE(slot.has(kCPU));
  REQUIRE_THROWS_WITH(slot.on(Device(kCPU), "frobnicate"),
                      Contains("frobnicate has no CPU kernel for a tensor on cpu"));
  slot.set(kCPU, &set_to_seven);
  int value = 0;
  slot.on(Device(kCPU), "frobnicate")(value);
  CHECK(value == 7);
  REQUIRE_THROWS_WITH(slot.on(Device(kCUDA, 1), "frobnicate"),
                      Contains("frobnicate has no CUDA kernel for a tensor on cuda:1"));
}

TEST_CASE("kernel registry: every elementwise and optimizer entry point has a CPU kernel, and a "
          "CUDA kernel exactly when ember is built with the CUDA backend",
          "[kernel_table]") {
  const ElementwiseKernels& k = kernels().elementwise;
  const OptimizerKernels& o = kernels().optimizer;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.binary.has(type) == expected);
    CHECK(k.unary.has(type) == expected);
    CHECK(k.compare.has(type) == expected);
    CHECK(k.ternary.has(type) == expected);
    CHECK(k.where.has(type) == expected);
    CHECK(k.loss.has(type) == expected);
    CHECK(o.sgd.has(type) == expected);
    CHECK(o.adam.has(type) == expected);
    CHECK(o.rmsprop.has(type) == expected);
    CHECK(o.adagrad.has(type) == expected);
  }
}

TEST_CASE("elementwise tables: each CPU kernel takes exactly the dtypes of its op's row",
          "[kernel_table]") {
  elementwise_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("elementwise tables: sub takes no bool and div only floating dtypes, on every device "
          "(the CPU once instantiated both for every dtype, the CUDA kernels did not)",
          "[kernel_table]") {
  CHECK(kBinaryOpDtypes[static_cast<int>(BinaryOp::kSub)] == DtypeSet::kNumeric);
  CHECK(kBinaryOpDtypes[static_cast<int>(BinaryOp::kDiv)] == DtypeSet::kFloating);
  // The ops themselves promote before the kernel: an int64 division is float32.
  CHECK(div(ones({2}, kLong), ones({2}, kLong)).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(sub(ones({2}, kBool), ones({2}, kBool)),
                      Contains("subtraction with a bool tensor is not supported"));
}

TEST_CASE("kernel registry: every pooling entry point has a CPU kernel and a CUDA kernel exactly "
          "when ember is built with the CUDA backend, except the fused max_pool2d backward "
          "(CUDA only: the CPU scatters by the indices)",
          "[kernel_table][pooling]") {
  const PoolingKernels& k = kernels().pooling;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.max_pool2d.has(type) == expected);
    CHECK(k.max_pool2d_backward.has(type) == (type == kCUDA && kWithCuda));
    CHECK(k.avg_pool2d.has(type) == expected);
    CHECK(k.avg_pool2d_backward.has(type) == expected);
    CHECK(k.adaptive_avg_pool2d.has(type) == expected);
    CHECK(k.adaptive_avg_pool2d_backward.has(type) == expected);
    CHECK(k.adaptive_max_pool2d.has(type) == expected);
  }
}

TEST_CASE("pooling table: each CPU kernel takes float32 and float64 only",
          "[kernel_table][pooling]") {
  nn_kernels_dtype_check::check_pooling(Device(kCPU));
}

TEST_CASE("kernel registry: every upsample entry point has a CPU kernel, and a CUDA kernel "
          "exactly when ember is built with the CUDA backend",
          "[kernel_table][upsample]") {
  const UpsampleKernels& k = kernels().upsample;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.nearest2d.has(type) == expected);
    CHECK(k.nearest2d_backward.has(type) == expected);
    CHECK(k.bilinear2d.has(type) == expected);
    CHECK(k.bilinear2d_backward.has(type) == expected);
  }
}

TEST_CASE("upsample table: each CPU kernel takes float32 and float64 only",
          "[kernel_table][upsample]") {
  nn_kernels_dtype_check::check_upsample(Device(kCPU));
}

TEST_CASE("kernel registry: both pad entry points have a CPU kernel, and a CUDA kernel exactly "
          "when ember is built with the CUDA backend",
          "[kernel_table][pad]") {
  const PadKernels& k = kernels().pad;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.axis.has(type) == expected);
    CHECK(k.axis_backward.has(type) == expected);
  }
}

TEST_CASE("pad table: each CPU kernel takes float32 and float64 only", "[kernel_table][pad]") {
  nn_kernels_dtype_check::check_pad(Device(kCPU));
}

TEST_CASE("kernel registry: every fused normalization entry point has a CPU kernel and a CUDA "
          "kernel exactly when ember is built with the CUDA backend; the cuDNN batch norm "
          "entries only CUDA",
          "[kernel_table][normalization]") {
  const NormalizationKernels& k = kernels().normalization;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.batch_norm_train_forward.has(type) == expected);
    CHECK(k.batch_norm_apply.has(type) == expected);
    CHECK(k.batch_norm_backward.has(type) == expected);
    CHECK(k.layer_norm_forward.has(type) == expected);
    CHECK(k.layer_norm_backward.has(type) == expected);
    const bool cudnn = type == kCUDA && kWithCuda;
    CHECK(k.cudnn_batch_norm_applies.has(type) == cudnn);
    CHECK(k.cudnn_batch_norm_train_forward.has(type) == cudnn);
    CHECK(k.cudnn_batch_norm_backward.has(type) == cudnn);
  }
}

TEST_CASE("normalization table: each fused CPU kernel takes float32 and float64 only",
          "[kernel_table][normalization]") {
  nn_kernels_dtype_check::check_normalization(Device(kCPU));
}

TEST_CASE("kernel registry: the softmax entry points have a CPU kernel (but for the rows "
          "kernel, CUDA only) and a CUDA kernel exactly when ember is built with the CUDA "
          "backend; the CPU softmax always runs by columns",
          "[kernel_table][softmax]") {
  const SoftmaxKernels& k = kernels().softmax;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.by_columns.has(type) == expected);
    CHECK(k.columns.has(type) == expected);
    CHECK(k.rows.has(type) == (type == kCUDA && kWithCuda));
    CHECK(k.logsumexp.has(type) == expected);
  }
  CHECK(k.by_columns.on(Device(kCPU), "softmax")(1, 1));
  CHECK(k.by_columns.on(Device(kCPU), "softmax")(1 << 20, 1 << 10));
}

TEST_CASE("softmax table: each CPU kernel takes float32 and float64 only",
          "[kernel_table][softmax]") {
  nn_kernels_dtype_check::check_softmax(Device(kCPU));
}

TEST_CASE("kernel registry: every reduce entry point has a CPU kernel, and a CUDA kernel exactly "
          "when ember is built with the CUDA backend",
          "[kernel_table]") {
  const ReduceKernels& k = kernels().reduce;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.reduce.has(type) == expected);
    CHECK(k.arg_reduce.has(type) == expected);
    CHECK(k.abs_pow_sum.has(type) == expected);
  }
}

TEST_CASE("reduce table: each CPU kernel takes exactly the dtypes of its op's row",
          "[kernel_table]") {
  reduce_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("reduce table: the output dtype of each row (sums and products of integers and bools "
          "in int64, as PyTorch)",
          "[kernel_table]") {
  CHECK(reduce_out_dtype(ReduceOp::kSum, kBool) == kLong);
  CHECK(reduce_out_dtype(ReduceOp::kProd, kLong) == kLong);
  CHECK(reduce_out_dtype(ReduceOp::kSum, kFloat) == kFloat);
  CHECK(reduce_out_dtype(ReduceOp::kMax, kBool) == kBool);
  CHECK(reduce_out_dtype(ReduceOp::kAny, kFloat) == kBool);
  CHECK(reduce_out_dtype(ReduceOp::kAbsSum, kFloat) == kDouble);
  // The ops allocate what the kernels write.
  CHECK(sum(ones({2}, kBool)).scalar_type() == kLong);
  CHECK(prod(ones({2}, kFloat)).scalar_type() == kFloat);
}

TEST_CASE("reduce table: the CPU's float64 sums of |x|^p (the rows clip_grad_norm_ uses on CUDA) "
          "agree with the fused abs_pow_sum",
          "[kernel_table]") {
  const Tensor x = tensor({-3.0f, 4.0f, 0.5f, -1.0f}).reshape({2, 2});
  const Tensor by_row = empty({}, kDouble), fused = empty({}, kDouble);
  const DimVector keep{1, 1};
  const std::pair<ReduceOp, double> cases[] = {{ReduceOp::kAbsSum, 1.0},
                                               {ReduceOp::kSquareSum, 2.0},
                                               {ReduceOp::kAbsPowSum, 3.0},
                                               {ReduceOp::kAbsMax, INFINITY}};
  for (const auto& [op, p] : cases) {
    INFO("p = " << p);
    kernels().reduce.reduce.on(x.device(), "reduce")("reduce", op, by_row, x, keep, p);
    kernels().reduce.abs_pow_sum.on(x.device(), "abs_pow_sum")("abs_pow_sum", fused, x.t(), p);  // strided: copied
    CHECK(by_row.item<double>() == Approx(fused.item<double>()));
  }
  CHECK(fused.item<double>() == 4.0);  // the largest |x|
}

TEST_CASE("kernel registry: every scan entry point has a CPU kernel, and a CUDA kernel exactly "
          "when ember is built with the CUDA backend",
          "[kernel_table]") {
  const ScanKernels& k = kernels().scan;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.scan.has(type) == expected);
    CHECK(k.logcumsumexp.has(type) == expected);
    CHECK(k.cum_extreme.has(type) == expected);
  }
}

TEST_CASE("scan table: each CPU kernel takes exactly its dtypes", "[kernel_table]") {
  scan_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: every sort entry point has a CPU kernel, and a CUDA kernel exactly "
          "when ember is built with the CUDA backend",
          "[kernel_table][sort]") {
  const SortKernels& k = kernels().sort;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.sort.has(type) == expected);
    CHECK(k.topk.has(type) == expected);
    CHECK(k.kth.has(type) == expected);
  }
}

TEST_CASE("sort table: each CPU kernel takes every dtype and writes (outer, m, inner)",
          "[kernel_table][sort]") {
  sort_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: every indexing entry point has a CPU kernel, and a CUDA kernel "
          "exactly when ember is built with the CUDA backend",
          "[kernel_table][index]") {
  const IndexingKernels& k = kernels().indexing;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.find_out_of_range.has(type) == expected);
    CHECK(k.gather.has(type) == expected);
    CHECK(k.index_select.has(type) == expected);
    CHECK(k.scatter_add.has(type) == expected);
    CHECK(k.scatter.has(type) == expected);
    CHECK(k.scatter_reduce.has(type) == expected);
    CHECK(k.one_hot.has(type) == expected);
  }
}

TEST_CASE("indexing table: each CPU kernel takes exactly its dtypes", "[kernel_table][index]") {
  indexing_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("indexing table: the CPU finds the first index value outside [low, high)",
          "[kernel_table][index]") {
  const auto find = kernels().indexing.find_out_of_range.on(Device(kCPU), "take");
  const Tensor index = tensor({0, 3, -2, 5});
  CHECK(find(index, -2, 5) == std::optional<int64_t>(5));
  CHECK(find(index, 0, 10) == std::optional<int64_t>(-2));
  CHECK(find(index, -2, 6) == std::nullopt);
  CHECK(find(zeros({0}, kLong), 0, 0) == std::nullopt);
}

TEST_CASE("kernel registry: every cross-entropy entry point has a CPU kernel, and a CUDA kernel "
          "exactly when ember is built with the CUDA backend; the CPU takes the scores by "
          "columns",
          "[kernel_table][cross_entropy]") {
  const CrossEntropyKernels& k = kernels().cross_entropy;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.by_columns.has(type) == expected);
    CHECK(k.forward.has(type) == expected);
    CHECK(k.backward.has(type) == expected);
    CHECK(k.check_targets.has(type) == expected);
  }
  CHECK(k.by_columns.on(Device(kCPU), "cross_entropy")());
}

TEST_CASE("cross-entropy table: each CPU kernel takes float32 and float64 only",
          "[kernel_table][cross_entropy]") {
  nn_kernels_dtype_check::check_cross_entropy(Device(kCPU));
}

TEST_CASE("cross-entropy table: the CPU kernels raise a bad target, naming the op, before "
          "writing anything",
          "[kernel_table][cross_entropy]") {
  const CrossEntropyKernels& k = kernels().cross_entropy;
  const Device cpu(kCPU);
  const char* message = "target 3 is out of bounds for 3 classes (valid range [0, 2], or "
                        "ignore_index -100)";
  CrossEntropyArgs args;
  args.outer = 2;
  args.classes = 3;
  args.target = tensor({0, 3}, kLong);
  const Tensor x = ones({2, 3}), lse = full({2}, 5.0), loss = full({2}, 5.0);
  REQUIRE_THROWS_WITH(k.forward.on(cpu, "cross_entropy")(x, args, lse, loss, Tensor()),
                      Contains(std::string("cross_entropy: ") + message));
  CHECK(loss.sum().item<double>() == 10);
  REQUIRE_THROWS_WITH(k.check_targets.on(cpu, "nll_loss")("nll_loss", args.target, 3, -100),
                      Contains(std::string("nll_loss: ") + message));
  CHECK_NOTHROW(k.check_targets.on(cpu, "nll_loss")("nll_loss", tensor({-100, 2}, kLong), 3,
                                                    -100));
}

TEST_CASE("cross-entropy table: the CPU forward writes each line's weight w[t] (0 where "
          "ignored) when asked, kMean's divisor",
          "[kernel_table][cross_entropy]") {
  CrossEntropyArgs args;
  args.outer = 3;
  args.classes = 3;
  args.target = tensor({2, -100, 0}, kLong);
  args.weight = tensor({1.0f, 2.0f, 3.0f});
  const Tensor x = zeros({3, 3}), lse = empty({3}), loss = empty({3}), line_weight = empty({3});
  kernels().cross_entropy.forward.on(Device(kCPU), "cross_entropy")(x, args, lse, loss,
                                                                     line_weight);
  const float* w = line_weight.data_ptr<float>();
  CHECK(w[0] == 3.0f);
  CHECK(w[1] == 0.0f);
  CHECK(w[2] == 1.0f);
  CHECK(loss.data_ptr<float>()[1] == 0.0f);  // ignored
}

TEST_CASE("kernel registry: every bucketing entry point has a CPU kernel, and a CUDA kernel "
          "exactly when ember is built with the CUDA backend",
          "[kernel_table][bucketing]") {
  const BucketingKernels& k = kernels().bucketing;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.searchsorted.has(type) == expected);
    CHECK(k.bincount.has(type) == expected);
    CHECK(k.histc.has(type) == expected);
  }
}

TEST_CASE("bucketing table: each CPU kernel takes exactly the dtypes of its set",
          "[kernel_table][bucketing]") {
  bucketing_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: copy and fill have a CPU kernel and the transfers none, and all five "
          "a CUDA kernel exactly when ember is built with the CUDA backend",
          "[kernel_table][copy]") {
  const CopyKernels& k = kernels().copy;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    const bool cuda = type == kCUDA && kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.copy.has(type) == expected);
    CHECK(k.fill.has(type) == expected);
    CHECK(k.to_device.has(type) == cuda);
    CHECK(k.to_host.has(type) == cuda);
    CHECK(k.between_devices.has(type) == cuda);
  }
  if (!kWithCuda) {
    REQUIRE_THROWS_WITH(k.fill.on(Device(kCUDA, 0), "fill_"),
                        Contains("fill_ has no CUDA kernel for a tensor on cuda:0 (ember was "
                                 "built without the CUDA backend)"));
  }
}

TEST_CASE("copy table: the CPU copy takes every pair of dtypes and the fill every dtype",
          "[kernel_table][copy]") {
  copy_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: both range factory entry points have a CPU kernel, and a CUDA kernel "
          "exactly when ember is built with the CUDA backend",
          "[kernel_table][factory]") {
  const FactoryKernels& k = kernels().factory;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.arange.has(type) == expected);
    CHECK(k.linspace.has(type) == expected);
  }
}

TEST_CASE("factory table: each CPU range kernel takes int64, float32 and float64 only",
          "[kernel_table][factory]") {
  factory_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: every random entry point has a CPU kernel, and a CUDA kernel exactly "
          "when ember is built with the CUDA backend",
          "[kernel_table][random]") {
  const RandomKernels& k = kernels().random;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.uniform.has(type) == expected);
    CHECK(k.normal.has(type) == expected);
    CHECK(k.randint.has(type) == expected);
    CHECK(k.dropout_mask.has(type) == expected);
  }
}

TEST_CASE("random table: each CPU kernel takes exactly its dtypes", "[kernel_table][random]") {
  random_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: every conv pass has a CPU kernel, and a CUDA kernel exactly when "
          "ember is built with the CUDA backend",
          "[kernel_table][conv]") {
  const ConvKernels& k = kernels().conv;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.forward.has(type) == expected);
    CHECK(k.backward_data.has(type) == expected);
    CHECK(k.backward_weight.has(type) == expected);
  }
}

TEST_CASE("conv table: each CPU pass takes float32 and float64 only", "[kernel_table][conv]") {
  nn_kernels_dtype_check::check_conv(Device(kCPU));
}

TEST_CASE("kernel registry: the matmul gemm has a CPU kernel and a CUDA kernel exactly when ember "
          "is built with the CUDA backend; the strided dot is the CPU's only (CUDA multiplies "
          "(1, k) @ (k, 1) through its gemm)",
          "[kernel_table][matmul]") {
  const MatmulKernels& k = kernels().matmul;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.gemm.has(type) == expected);
    CHECK(k.gemm_dtypes.has(type) == expected);
    CHECK(k.dot.has(type) == (type == kCPU));
  }
}

TEST_CASE("matmul table: the CPU gemm and dot take int64, float32 and float64",
          "[kernel_table][matmul]") {
  matmul_dtype_check::check_device(Device(kCPU));
}

TEST_CASE("kernel registry: every linalg solver has a CPU kernel and a CUDA kernel exactly when "
          "ember is built with the CUDA backend; the decompositions (eigh, svd, qr) are the CPU's "
          "only",
          "[kernel_table][linalg]") {
  const LinalgKernels& k = kernels().linalg;
  for (DeviceType type : {kCPU, kCUDA}) {
    const bool expected = type == kCPU || kWithCuda;
    INFO("device type " << static_cast<int>(type));
    CHECK(k.lu_factor.has(type) == expected);
    CHECK(k.lu_solve.has(type) == expected);
    CHECK(k.cholesky.has(type) == expected);
    CHECK(k.triangular_solve.has(type) == expected);
    CHECK(k.eigh.has(type) == (type == kCPU));
    CHECK(k.svd.has(type) == (type == kCPU));
    CHECK(k.qr.has(type) == (type == kCPU));
    CHECK(k.upper_triangular_inverse.has(type) == (type == kCPU));
  }
}

TEST_CASE("linalg table: each CPU kernel takes float32 and float64 only",
          "[kernel_table][linalg]") {
  linalg_dtype_check::check_device(Device(kCPU));
}
