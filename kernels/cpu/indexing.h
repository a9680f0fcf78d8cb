#pragma once
// The CPU entry points of the indexing family (kernels/common/indexing_kernels.h
// says what each computes and what the ops have checked). Registered in
// kernels/cpu/register_kernels.cpp. Each dtype Error names the kernel
// ("gather", "scatter_add", ...), not `op`, as before the table.
#include "ember/kernels/common/indexing_kernels.h"

namespace ember::cpu {

decltype(IndexingKernels::find_out_of_range)::Signature find_out_of_range;
decltype(IndexingKernels::gather)::Signature gather;
decltype(IndexingKernels::index_select)::Signature index_select;
decltype(IndexingKernels::scatter_add)::Signature scatter_add;
decltype(IndexingKernels::scatter)::Signature scatter;
decltype(IndexingKernels::scatter_reduce)::Signature scatter_reduce;
decltype(IndexingKernels::one_hot)::Signature one_hot;

}  // namespace ember::cpu
