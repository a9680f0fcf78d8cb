#pragma once
// The CPU entry points of the indexing family (kernels/common/indexing_kernels.h
// says what each computes and what the ops have checked). Registered in
// kernels/cpu/register_kernels.cpp. Each dtype Error names the kernel
// ("gather", "scatter_add", ...), not `op`, as before the table.
#include "ember/kernels/common/indexing_kernels.h"

namespace ember::cpu {

std::optional<int64_t> find_out_of_range(const Tensor& index, int64_t low, int64_t high);
void gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
            const Tensor& index);
void index_select(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                  const Tensor& index);
void scatter_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src);
void scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
             const Tensor& src);
void scatter_reduce(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                    const Tensor& src, functors::ScatterReduce reduce);
void one_hot(const Tensor& out, const Tensor& indices);

}  // namespace ember::cpu
