// tcnum::dmma_element (f64 DMMA, tcnum/core/dmma.hpp) on raw binary64 arrays, for tcnum.dmma_element.
#pragma once
#include <nanobind/nanobind.h>

namespace tcnum::python {
void bind_dmma(nanobind::module_& m);
}
