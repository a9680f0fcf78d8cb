#pragma once
// EMBER_ARG(T, name): an options field with a chaining setter and getters of
// the same name, as libtorch's TORCH_ARG:
//   LinearOptions(2, 3).bias(false);  options.bias() == false
#define EMBER_ARG(T, name)                                  \
 public:                                                    \
  auto name(const T& new_##name)->decltype(*this) {         \
    this->name##_ = new_##name;                             \
    return *this;                                           \
  }                                                         \
  auto name(T&& new_##name)->decltype(*this) {              \
    this->name##_ = std::move(new_##name);                  \
    return *this;                                           \
  }                                                         \
  const T& name() const noexcept { return this->name##_; }  \
  T& name() noexcept { return this->name##_; }              \
                                                            \
 private:                                                   \
  T name##_
