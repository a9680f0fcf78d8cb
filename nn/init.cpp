#include "ember/nn/init.h"

#include <cmath>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/creation/random.h"

namespace ember::nn::init {

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case kTanh: return 5.0 / 3.0;
    case kReLU: return std::sqrt(2.0);
    case kLeakyReLU: return std::sqrt(2.0 / (1 + param * param));
    case kGELU: EMBER_CHECK(false, "calculate_gain: unsupported nonlinearity GELU"); return 0;
    default: return 1.0;  // linear, conv and sigmoid
  }
}

std::tuple<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2,
              "calculate_fan_in_and_fan_out: fan in and fan out can not be computed for a "
              "tensor with fewer than 2 dimensions, got ", tensor.sizes());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor constant_(Tensor tensor, const Scalar& value) {
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor uniform_(Tensor tensor, double low, double high) {
  NoGradGuard no_grad;
  return tensor.uniform_(low, high);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

namespace {

double xavier_std(const Tensor& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

double kaiming_std(const Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const int64_t fan = mode == kFanIn ? fan_in : fan_out;
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}

}  // namespace

Tensor xavier_uniform_(Tensor tensor, double gain) {
  if (tensor.numel() == 0) return tensor;
  const double bound = std::sqrt(3.0) * xavier_std(tensor, gain);
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  if (tensor.numel() == 0) return tensor;
  const double std = xavier_std(tensor, gain);
  return normal_(std::move(tensor), 0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (tensor.numel() == 0) return tensor;
  const double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity);
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  if (tensor.numel() == 0) return tensor;
  const double std = kaiming_std(tensor, a, mode, nonlinearity);
  return normal_(std::move(tensor), 0, std);
}

namespace {

// Orthonormalizes the n columns of the row-major (m, n) matrix a (m >= n) in
// place: modified Gram-Schmidt, each column projected twice so rounding
// leaves it orthogonal to working precision. The R factor's diagonal is
// positive, which is the sign fix PyTorch applies to its QR.
void orthonormalize_columns(std::vector<double>& a, int64_t m, int64_t n) {
  auto at = [&](int64_t i, int64_t j) -> double& { return a[i * n + j]; };
  for (int64_t j = 0; j < n; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < m; ++i) dot += at(i, k) * at(i, j);
        for (int64_t i = 0; i < m; ++i) at(i, j) -= dot * at(i, k);
      }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += at(i, j) * at(i, j);
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) at(i, j) /= norm;
  }
}

}  // namespace

Tensor orthogonal_(Tensor tensor, double gain) {
  EMBER_CHECK(tensor.dim() >= 2, "orthogonal_: only tensors with 2 or more dimensions are "
              "supported, got ", tensor.sizes());
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.numel() / rows;
  // Work on the tall orientation (m >= n), transposing back for a wide one.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows;
  const int64_t n = wide ? rows : cols;
  const Tensor gaussian = randn({m, n}, kDouble);
  std::vector<double> q(gaussian.data_ptr<double>(), gaussian.data_ptr<double>() + m * n);
  orthonormalize_columns(q, m, n);
  for (double& v : q) v *= gain;
  Tensor result = from_blob(q.data(), {m, n}, kDouble);
  if (wide) result = result.t();
  tensor.copy_(result.reshape(tensor.sizes()));
  return tensor;
}

}  // namespace ember::nn::init
