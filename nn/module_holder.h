#pragma once
// ModuleHolder<FooImpl>: the shared_ptr wrapper that makes `Foo` usable by
// value, as torch::nn::ModuleHolder. EMBER_MODULE(Foo) declares `Foo` for
// `FooImpl`, as TORCH_MODULE.
//
//   Linear fc(2, 3);       // constructs a LinearImpl(2, 3)
//   fc->weight;            // the Impl's members
//   fc(x);                 // forward through the module's hooks
//   fc->forward(x);        // forward (built-in layers run hooks too)
//   Linear empty{nullptr}; // no module yet
#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "ember/core/error.h"
#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {
// Whether M::forward(args) is a one-tensor forward returning a Tensor.
template <typename M, typename... Args>
struct IsTensorToTensor : std::false_type {};
template <typename M, typename Arg>
struct IsTensorToTensor<M, Arg>
    : std::bool_constant<std::is_convertible_v<Arg, const Tensor&> &&
                         std::is_same_v<decltype(std::declval<M&>().forward(std::declval<Arg>())),
                                        Tensor>> {};
}  // namespace detail

template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  // Default-constructs the module (only for modules with a default constructor;
  // use `Foo{nullptr}` for an empty holder).
  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) {}  // NOLINT: empty holder, as libtorch
  // Forwards the arguments to Contained's constructor (one holder of the same
  // module is a copy instead).
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<
                !(sizeof...(Tail) == 0 &&
                  (std::is_base_of_v<ModuleHolder, std::decay_t<Head>> ||
                   std::is_same_v<std::decay_t<Head>, std::nullptr_t>))>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    EMBER_CHECK(!is_empty(), "Accessing an empty ModuleHolder");
    return impl_;
  }
  Contained* get() {
    EMBER_CHECK(!is_empty(), "Accessing an empty ModuleHolder");
    return impl_.get();
  }
  const Contained* get() const {
    EMBER_CHECK(!is_empty(), "Accessing an empty ModuleHolder");
    return impl_.get();
  }

  // module(x): a one-tensor forward runs through the module's hooks; other
  // forwards are called directly.
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    Contained* m = get();
    if constexpr (is_tensor_to_tensor<Args...>) {
      return m->call_with_hooks(args..., [m](const Tensor& x) { return m->forward(x); });
    } else {
      return m->forward(std::forward<Args>(args)...);
    }
  }

  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  template <typename... Args>
  static constexpr bool is_tensor_to_tensor = detail::IsTensorToTensor<Contained, Args...>::value;

  static std::shared_ptr<Contained> default_construct() {
    static_assert(std::is_default_constructible_v<Contained>,
                  "this module has no default constructor: pass its options, or write "
                  "`Name{nullptr}` for an empty holder");
    return std::make_shared<Contained>();
  }
};

template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& module) {
  return stream << *module;
}

}  // namespace ember::nn

// Declares `Name`, the holder of `NameImpl` (as TORCH_MODULE).
#define EMBER_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
  }

#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
