#pragma once

namespace ember::cuda {

// The launch plans of the above, exposed for the CPU tests.
IndexLaunch plan_gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                        const Tensor& index);
IndexLaunch plan_index_select(const char* op, const Tensor& out, const Tensor& self,
                              int64_t dim, const Tensor& index);
// scatter_add's plan serves scatter and scatter_reduce too (same geometry).
IndexLaunch plan_scatter_add(const char* op, const Tensor& self, int64_t dim,
                             const Tensor& index, const Tensor& src);

}  // namespace ember::cuda
