#include "bits.hpp"

#include <string>

namespace tcnum::python {
namespace {

using Code = nb::dlpack::dtype_code;

template <typename T>
ArrayOut owned_array(std::vector<T>&& v, const std::vector<std::size_t>& shape) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return ArrayOut(heap->data(), shape.size(), shape.data(), owner, nullptr, nb::dtype<T>());
}

template <typename T>
ArrayOut narrowed(const std::vector<std::uint32_t>& bits, const std::vector<std::size_t>& shape) {
  std::vector<T> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = static_cast<T>(bits[i]);
  return owned_array(std::move(out), shape);
}

template <typename T>
void widen_from(const void* data, std::size_t n, std::vector<std::uint32_t>& out) {
  const T* p = static_cast<const T*>(data);
  for (std::size_t i = 0; i < n; ++i) out[i] = p[i];
}

std::string dtype_name(nb::dlpack::dtype dt) {
  const auto code = static_cast<Code>(dt.code);
  const std::string bits = std::to_string(dt.bits);
  switch (code) {
    case Code::UInt: return "uint" + bits;
    case Code::Int: return "int" + bits;
    case Code::Float: return "float" + bits;
    case Code::Bfloat: return "bfloat" + bits;
    case Code::Float8_E4M3FN: return "float8_e4m3fn";
    case Code::Float8_E5M2: return "float8_e5m2";
    case Code::Bool: return "bool";
    default: return "dlpack type code " + std::to_string(dt.code) + " (" + bits + " bits)";
  }
}

}  // namespace

std::vector<std::uint32_t> widen(const BitsIn& bits, const char* what) {
  const nb::dlpack::dtype dt = bits.dtype();
  if (static_cast<Code>(dt.code) != Code::UInt || dt.lanes != 1 || (dt.bits != 8 && dt.bits != 16 && dt.bits != 32))
    throw nb::type_error((std::string(what) + ": raw bits must be uint8, uint16 or uint32, got " + dtype_name(dt)).c_str());
  std::vector<std::uint32_t> out(bits.size());
  switch (dt.bits) {
    case 8: widen_from<std::uint8_t>(bits.data(), out.size(), out); break;
    case 16: widen_from<std::uint16_t>(bits.data(), out.size(), out); break;
    default: widen_from<std::uint32_t>(bits.data(), out.size(), out); break;
  }
  return out;
}

ArrayOut storage_array(std::vector<std::uint32_t> bits, Format f, const std::vector<std::size_t>& shape) {
  // FP4/FP6 (4/6 storage bits) live in bytes, as ml_dtypes holds them.
  const int bits_per = spec(f).storage_bits;
  if (bits_per <= 8) return narrowed<std::uint8_t>(bits, shape);
  if (bits_per <= 16) return narrowed<std::uint16_t>(bits, shape);
  return owned_array(std::move(bits), shape);
}

ArrayOut float64_array(std::vector<double>&& values, const std::vector<std::size_t>& shape) {
  return owned_array(std::move(values), shape);
}

std::pair<BitsView, std::string> import_dlpack(nb::ndarray<nb::ro, nb::device::cpu> x) {
  const nb::dlpack::dtype dt = x.dtype();
  if (dt.lanes != 1 || (dt.bits != 8 && dt.bits != 16 && dt.bits != 32 && dt.bits != 64))
    throw nb::type_error(("unsupported DLPack element type: " + dtype_name(dt)).c_str());
  std::vector<std::size_t> shape(x.ndim());
  std::vector<std::int64_t> strides(x.ndim());
  for (std::size_t i = 0; i < x.ndim(); ++i) {
    shape[i] = x.shape(i);
    strides[i] = x.stride(i);  // in elements, as nanobind's constructor expects
  }
  nb::dlpack::dtype view_type{static_cast<std::uint8_t>(Code::UInt), dt.bits, 1};
  // The view keeps the imported DLPack tensor (and so the producer's buffer) alive.
  using Imported = nb::ndarray<nb::ro, nb::device::cpu>;
  nb::capsule owner(new Imported(x), [](void* p) noexcept { delete static_cast<Imported*>(p); });
  return {BitsView(x.data(), x.ndim(), shape.data(), owner, strides.data(), view_type), dtype_name(dt)};
}

}  // namespace tcnum::python
