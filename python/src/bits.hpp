// Raw-bit arrays between Python and the core: numpy/DLPack buffers in, uint32 vectors to the
// library, storage-width numpy arrays out. No per-element Python work anywhere.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <tcnum/tcnum.hpp>

namespace tcnum::python {

namespace nb = nanobind;

// A C-contiguous CPU array of raw bits (uint8, uint16 or uint32), read only.
using BitsIn = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
// Any numpy array handed back (its dtype is uint8/16/32 or float64).
using ArrayOut = nb::ndarray<nb::numpy>;

// Widens `bits` to one uint32 per element; throws TypeError unless its dtype is unsigned
// 8/16/32-bit. `what` names the operand in messages.
std::vector<std::uint32_t> widen(const BitsIn& bits, const char* what);

// A numpy array of f's storage width (uint8/uint16/uint32) holding `bits`, with `shape`
// (32-bit formats take over the vector's buffer: pass it with std::move where it is done with).
ArrayOut storage_array(std::vector<std::uint32_t> bits, Format f, const std::vector<std::size_t>& shape);

// A new numpy float64 array with `shape`, owning `values`.
ArrayOut float64_array(std::vector<double>&& values, const std::vector<std::size_t>& shape);

// Imports any DLPack-exporting CPU object (torch tensors of bf16/fp8 included) and returns
// (a numpy view of its bytes as uint8/16/32 with the same shape and strides, its dtype as
// a name such as "bfloat16", "float8_e4m3fn", "float32", "uint16"). The view keeps the
// object alive.
using BitsView = nb::ndarray<nb::numpy, nb::ro>;
std::pair<BitsView, std::string> import_dlpack(nb::ndarray<nb::ro, nb::device::cpu> x);

}  // namespace tcnum::python
