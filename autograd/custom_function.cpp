#include "ember/autograd/custom_function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <mutex>

#include "ember/core/ops/creation/factory.h"  // zeros: a materialized gradient has no tensor to copy options from

namespace ember::autograd {

namespace {
template <typename V, typename Variant>
const V& get_or_throw(const Variant& v, const char* what) {
  const V* p = std::get_if<V>(&v);
  EMBER_CHECK(p != nullptr, "IValue: the value is not ", what);
  return *p;
}
}  // namespace

double IValue::toDouble() const {
  if (const auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  return get_or_throw<double>(v_, "a double");
}
int64_t IValue::toInt() const { return get_or_throw<int64_t>(v_, "an integer"); }
bool IValue::toBool() const { return get_or_throw<bool>(v_, "a bool"); }
const Tensor& IValue::toTensor() const { return get_or_throw<Tensor>(v_, "a Tensor"); }
const std::string& IValue::toStringRef() const { return get_or_throw<std::string>(v_, "a string"); }
const std::vector<int64_t>& IValue::toIntVector() const {
  return get_or_throw<std::vector<int64_t>>(v_, "an integer list");
}

variable_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(node_ != nullptr, "get_saved_variables: call it from backward");
  variable_list out;
  for (size_t i = 0; i < saved_count_; ++i) out.push_back(node_->saved(i));
  return out;
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl().get());
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.push_back(t.impl().get());
}

bool AutogradContext::needs_input_grad(size_t i) const {
  return i < needs_input_grad_.size() && needs_input_grad_[i];
}

namespace detail {

const char* custom_node_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  if (const size_t colons = name.rfind("::"); colons != std::string::npos) name.erase(0, colons + 2);
  name += "Backward";
  // Nodes keep the pointer: the names live as long as the program.
  static std::mutex mutex;
  static auto* names = new std::deque<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  return names->emplace_back(std::move(name)).c_str();
}

std::shared_ptr<Node> record_custom_function(
    const char* name, const ForwardArgs& args, const std::shared_ptr<AutogradContext>& ctx,
    variable_list& outputs, std::function<variable_list(AutogradContext*, variable_list)> backward) {
  const bool recording = needs_grad_list(args.tensors);
  std::vector<size_t> tensor_args;  // positions of the tensor arguments
  for (size_t i = 0, t = 0; i < args.is_tensor.size(); ++i) {
    const bool wanted = args.is_tensor[i] && recording && args.tensors[t].requires_grad();
    ctx->needs_input_grad_.push_back(wanted);
    if (args.is_tensor[i]) {
      tensor_args.push_back(i);
      ++t;
    }
  }
  if (!recording) {
    ctx->to_save_.clear();
    return nullptr;
  }
  // Outputs that are inputs: dirty ones keep their identity and get the new
  // history; the others become aliases, so the input's own history stays.
  std::vector<bool> rebased(outputs.size(), false);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorImpl* out = outputs[k].impl().get();
    const bool is_input = std::any_of(args.tensors.begin(), args.tensors.end(),
                                      [&](const Tensor& in) { return in.impl().get() == out; });
    if (!is_input) continue;
    if (std::find(ctx->dirty_.begin(), ctx->dirty_.end(), out) == ctx->dirty_.end()) {
      outputs[k] = outputs[k].detach();
      continue;
    }
    // forward already wrote it (PyTorch checks at the same point).
    check_inplace(outputs[k], name, args.tensors);
    rebased[k] = true;
  }
  for (const TensorImpl* d : ctx->dirty_)
    EMBER_CHECK(std::any_of(outputs.begin(), outputs.end(),
                            [&](const Tensor& o) { return o.impl().get() == d; }),
                name, ": a tensor given to mark_dirty was not returned by forward");

  // Which outputs are recorded (differentiable), and every output's layout for zeros.
  std::vector<int> recorded_as(outputs.size(), -1);
  std::vector<TensorMeta> layouts;
  int recorded = 0;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& o = outputs[k];
    layouts.push_back({DimVector(o.sizes()), o.scalar_type(), o.device()});
    const bool excluded = std::find(ctx->non_differentiable_.begin(), ctx->non_differentiable_.end(),
                                    o.impl().get()) != ctx->non_differentiable_.end();
    if (!excluded && o.is_floating_point()) recorded_as[k] = recorded++;
  }
  const size_t n_args = args.is_tensor.size();
  const std::vector<bool> is_tensor = args.is_tensor;
  // The lambda keeps the context (saved_data) and a weak view of nothing else.
  AutogradContext* raw = ctx.get();
  auto node = make_node(name, args.tensors,
      [ctx, backward, recorded_as, layouts, tensor_args, n_args, is_tensor](
          Node& n, const tensor_list& g) {
        variable_list grads(layouts.size());
        for (size_t k = 0; k < layouts.size(); ++k) {
          if (recorded_as[k] >= 0) grads[k] = g[static_cast<size_t>(recorded_as[k])];
          if (!grads[k].defined() && ctx->materialize_grads_)
            grads[k] = zeros(layouts[k].sizes,
                             TensorOptions(layouts[k].dtype).device(layouts[k].device));
        }
        ctx->node_ = &n;
        variable_list result;
        try {
          result = backward(ctx.get(), std::move(grads));
        } catch (...) {
          ctx->node_ = nullptr;
          throw;
        }
        ctx->node_ = nullptr;
        EMBER_CHECK(result.size() == n_args, n.name(), ": backward returned ", result.size(),
                    " gradients but forward took ", n_args, " arguments (return an undefined "
                    "Tensor for each argument that gets no gradient)");
        for (size_t i = 0; i < n_args; ++i)
          EMBER_CHECK(is_tensor[i] || !result[i].defined(), n.name(), ": backward returned a "
                      "gradient for argument ", i, ", which is not a tensor");
        tensor_list per_input;
        for (size_t p : tensor_args) per_input.push_back(result[p]);
        return per_input;
      });
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (recorded_as[k] < 0) continue;
    if (rebased[k])
      rebase_history(outputs[k], node);
    else
      set_history(outputs[k], node);
  }
  for (const Tensor& t : raw->to_save_) {
    bool is_output = false;
    for (size_t k = 0; k < outputs.size(); ++k)
      is_output = is_output || (recorded_as[k] >= 0 && t.defined() && t.is_same(outputs[k]));
    node->save(t, is_output);
  }
  raw->saved_count_ = raw->to_save_.size();
  raw->to_save_.clear();
  return node;
}

}  // namespace detail

}  // namespace ember::autograd
