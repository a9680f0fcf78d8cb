#pragma once
// Internal argument checks shared by loss_extra.cpp and loss_margin.cpp; the
// messages name the loss, shapes and dtypes.
#include <initializer_list>

#include "ember/core/tensor.h"

namespace ember::nn::functional::detail {

// A floating point target (the losses where the target is a value, not a label).
void check_floating_target(const char* op, const Tensor& target);

// A +-1 label target: floating point or int64.
void check_label_target(const char* op, const Tensor& target);

// a and b broadcast against each other; names them a_name and b_name.
void check_broadcastable(const char* op, const char* a_name, const Tensor& a, const char* b_name,
                         const Tensor& b);

// Defined, on one device, floating point: the distance losses' inputs.
void check_float_inputs(const char* op, std::initializer_list<const Tensor*> inputs);

}  // namespace ember::nn::functional::detail
