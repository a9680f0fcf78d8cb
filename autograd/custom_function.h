#pragma once
// libtorch's custom autograd functions:
//
//   struct MulConstant : ember::autograd::Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
//       ctx->saved_data["k"] = k;
//       ctx->save_for_backward({x});
//       return x * k;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       return {grads[0] * ctx->saved_data["k"].toDouble(), Tensor()};  // one per forward arg
//     }
//   };
//   Tensor y = MulConstant::apply(x, 2.0);
//
// apply runs forward with grad mode off, then records one node whose backward
// calls T::backward. The tensors given to save_for_backward become the node's
// saved tensors (with the version check and the release after backward);
// backward returns one gradient per argument of forward (undefined for
// non-tensor arguments and for inputs that need none). An input that forward
// changes in place is marked with ctx->mark_dirty and returned: it then comes
// from the new node. An input returned unchanged comes back as a new tensor
// sharing its storage (PyTorch's view_as), with the new node as its grad_fn.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/autograd/function.h"

namespace ember::autograd {

using variable_list = tensor_list;

// A value kept in AutogradContext::saved_data (libtorch's IValue, the kinds a
// backward usually needs).
class IValue {
 public:
  IValue() = default;
  IValue(double v) : v_(v) {}  // NOLINT: implicit, as libtorch
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IValue(I v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  IValue(bool v) : v_(v) {}                     // NOLINT
  IValue(Tensor v) : v_(std::move(v)) {}        // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}   // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}  // NOLINT
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT

  bool isNone() const { return v_.index() == 0; }
  double toDouble() const;  // a double or an integer
  int64_t toInt() const;
  bool toBool() const;
  const Tensor& toTensor() const;
  const std::string& toStringRef() const;
  const std::vector<int64_t>& toIntVector() const;

 private:
  std::variant<std::monostate, double, int64_t, bool, Tensor, std::string, std::vector<int64_t>> v_;
};

class AutogradContext;

namespace detail {

// Flattens forward's arguments: each Tensor, each element of a tensor list,
// and a placeholder (false in is_tensor) for everything else.
struct ForwardArgs {
  variable_list tensors;
  std::vector<bool> is_tensor;
  void add(const Tensor& t) {
    tensors.push_back(t);
    is_tensor.push_back(true);
  }
  void add(const variable_list& list) {
    for (const Tensor& t : list) add(t);
  }
  template <typename Other>
  void add(const Other&) {
    is_tensor.push_back(false);
  }
};

// A readable name for T's node ("MulConstantBackward"), kept for the program's life.
const char* custom_node_name(const char* mangled);

// Records the node for a custom function: T's outputs get it as grad_fn.
std::shared_ptr<Node> record_custom_function(
    const char* name, const ForwardArgs& args, const std::shared_ptr<AutogradContext>& ctx,
    variable_list& outputs,
    std::function<variable_list(AutogradContext*, variable_list)> backward);

}  // namespace detail

class AutogradContext {
 public:
  std::unordered_map<std::string, IValue> saved_data;

  // Tensors backward will need (inputs or outputs of forward).
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  // In backward: the saved tensors, checked against in-place changes since.
  variable_list get_saved_variables() const;
  // Outputs that get no gradient (indices, masks): they are left out of the graph.
  void mark_non_differentiable(const variable_list& outputs);
  // Inputs that forward changed in place; forward must return them.
  void mark_dirty(const variable_list& inputs);
  // Whether undefined output gradients reach backward as zeros (the default) or undefined.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether forward's i-th argument needs a gradient (false for non-tensors).
  bool needs_input_grad(size_t i) const;

 private:
  variable_list to_save_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::vector<const TensorImpl*> dirty_;
  bool materialize_grads_ = true;
  std::vector<bool> needs_input_grad_;
  size_t saved_count_ = 0;
  Node* node_ = nullptr;  // set while backward runs

  friend std::shared_ptr<Node> detail::record_custom_function(
      const char*, const detail::ForwardArgs&, const std::shared_ptr<AutogradContext>&,
      variable_list&, std::function<variable_list(AutogradContext*, variable_list)>);
};


template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    detail::ForwardArgs flat;
    (flat.add(args), ...);
    auto ctx = std::make_shared<AutogradContext>();
    using Out = decltype(T::forward(ctx.get(), std::forward<Args>(args)...));
    static_assert(std::is_same_v<std::decay_t<Out>, Tensor> ||
                      std::is_same_v<std::decay_t<Out>, variable_list>,
                  "forward must return a Tensor or a variable_list");
    variable_list outputs;
    {
      AutoGradMode no_grad(false);
      if constexpr (std::is_same_v<std::decay_t<Out>, Tensor>)
        outputs = {T::forward(ctx.get(), std::forward<Args>(args)...)};
      else
        outputs = T::forward(ctx.get(), std::forward<Args>(args)...);
    }
    static const char* name = detail::custom_node_name(typeid(T).name());
    detail::record_custom_function(name, flat, ctx, outputs, &T::backward);
    if constexpr (std::is_same_v<std::decay_t<Out>, Tensor>)
      return outputs[0];
    else
      return outputs;
  }
};

}  // namespace ember::autograd
