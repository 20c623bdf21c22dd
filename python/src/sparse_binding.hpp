// Sparse A from Python (tcnum/core/sparse.hpp): single elements and GEMMs of mma.sp /
// wgmma.mma_async.sp, A given dense with its 2:4 (tf32: 1:2) pattern, or stored with metadata.
#pragma once
#include <nanobind/nanobind.h>

namespace tcnum::python {
void bind_sparse(nanobind::module_& m);
}
