#pragma once
// Parameter initialization, as torch::nn::init. Every function fills its
// tensor in place under NoGradGuard and returns it; a zero-size tensor is
// left alone.
#include <cstdint>
#include <tuple>

#include "ember/core/scalar.h"
#include "ember/core/tensor.h"

namespace ember {

// The nonlinearity a layer feeds (calculate_gain), as torch::kReLU etc.
enum class Nonlinearity {
  Linear, Conv1D, Conv2D, Conv3D, ConvTranspose1D, ConvTranspose2D, ConvTranspose3D,
  Sigmoid, Tanh, ReLU, LeakyReLU, GELU
};
inline constexpr Nonlinearity kLinear = Nonlinearity::Linear;
inline constexpr Nonlinearity kConv1D = Nonlinearity::Conv1D;
inline constexpr Nonlinearity kConv2D = Nonlinearity::Conv2D;
inline constexpr Nonlinearity kConv3D = Nonlinearity::Conv3D;
inline constexpr Nonlinearity kConvTranspose1D = Nonlinearity::ConvTranspose1D;
inline constexpr Nonlinearity kConvTranspose2D = Nonlinearity::ConvTranspose2D;
inline constexpr Nonlinearity kConvTranspose3D = Nonlinearity::ConvTranspose3D;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::Sigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::Tanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::ReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::LeakyReLU;
inline constexpr Nonlinearity kGELU = Nonlinearity::GELU;  // a Transformer activation; no gain

// Which fan the kaiming variance preserves: forward (fan_in) or backward (fan_out).
enum class FanMode { FanIn, FanOut };
inline constexpr FanMode kFanIn = FanMode::FanIn;
inline constexpr FanMode kFanOut = FanMode::FanOut;

namespace nn::init {

// 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
// sqrt(2 / (1 + param^2)) for leaky_relu (param: its negative slope).
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

// For a weight (out, in, *kernel): fan_in = in * prod(kernel), fan_out = out * prod(kernel).
std::tuple<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor constant_(Tensor tensor, const Scalar& value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);

// U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
// N(0, s^2), s = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
// U(-b, b), b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                        Nonlinearity nonlinearity = kLeakyReLU);
// N(0, s^2), s = gain / sqrt(fan).
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                       Nonlinearity nonlinearity = kLeakyReLU);
// A (semi-)orthogonal matrix (the tensor viewed as (size(0), rest)) times gain,
// from the QR decomposition of a Gaussian matrix.
Tensor orthogonal_(Tensor tensor, double gain = 1.0);

}  // namespace nn::init
}  // namespace ember
