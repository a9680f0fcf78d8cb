#pragma once
// The padding layers, as torch::nn's: ReflectionPad1d/2d, ReplicationPad1d/2d,
// ConstantPad1d/2d and ZeroPad2d. Each calls ember::pad (core/ops/nn_ops/pad.h) on the
// last D dims: ReflectionPad2d(2), ConstantPad2d(ConstantPad2dOptions({1, 0, 2, 0}, 0.5)).
#include <ostream>

#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/nn/module_holder.h"
#include "ember/nn/options/padding.h"

namespace ember::nn {

namespace detail {
// The layers' forward (ember::pad) and printing ("<name>(padding=[...])").
Tensor pad_forward(const Tensor& x, ArrayRef<int64_t> padding, PadMode mode, double value);
void print_pad(std::ostream& stream, const char* name, ArrayRef<int64_t> padding);
}  // namespace detail

// Options: ReflectionPadOptions<D>, ReplicationPadOptions<D> or ZeroPad2dOptions.
template <size_t D, PadMode Mode, typename Options>
class PadImpl : public Module {
 public:
  PadImpl(ExpandingArray<2 * D> padding) : PadImpl(Options(padding)) {}  // NOLINT
  explicit PadImpl(const Options& options_) : options(options_) {}
  Tensor forward(const Tensor& input) {
    return call_with_hooks(input, [this](const Tensor& x) {
      return detail::pad_forward(x, options.padding(), Mode, 0.0);
    });
  }
  Options options;
};

class ReflectionPad1dImpl : public PadImpl<1, kReflect, ReflectionPad1dOptions> {
 public:
  using PadImpl::PadImpl;
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, "ReflectionPad1d", options.padding());
  }
};
class ReflectionPad2dImpl : public PadImpl<2, kReflect, ReflectionPad2dOptions> {
 public:
  using PadImpl::PadImpl;
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, "ReflectionPad2d", options.padding());
  }
};
class ReplicationPad1dImpl : public PadImpl<1, kReplicate, ReplicationPad1dOptions> {
 public:
  using PadImpl::PadImpl;
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, "ReplicationPad1d", options.padding());
  }
};
class ReplicationPad2dImpl : public PadImpl<2, kReplicate, ReplicationPad2dOptions> {
 public:
  using PadImpl::PadImpl;
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, "ReplicationPad2d", options.padding());
  }
};
class ZeroPad2dImpl : public PadImpl<2, kConstant, ZeroPad2dOptions> {
 public:
  using PadImpl::PadImpl;
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, "ZeroPad2d", options.padding());
  }
};

template <size_t D>
class ConstantPadImpl : public Module {
 public:
  ConstantPadImpl(ExpandingArray<2 * D> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options_) : options(options_) {}
  Tensor forward(const Tensor& input) {
    return call_with_hooks(input, [this](const Tensor& x) {
      return detail::pad_forward(x, options.padding(), kConstant, options.value());
    });
  }
  void pretty_print(std::ostream& s) const override {
    detail::print_pad(s, D == 1 ? "ConstantPad1d" : "ConstantPad2d", options.padding());
  }
  ConstantPadOptions<D> options;
};
using ConstantPad1dImpl = ConstantPadImpl<1>;
using ConstantPad2dImpl = ConstantPadImpl<2>;

EMBER_MODULE(ReflectionPad1d);
EMBER_MODULE(ReflectionPad2d);
EMBER_MODULE(ReplicationPad1d);
EMBER_MODULE(ReplicationPad2d);
EMBER_MODULE(ZeroPad2d);
EMBER_MODULE(ConstantPad1d);
EMBER_MODULE(ConstantPad2d);

}  // namespace ember::nn
