// Matrix views: a pointer with rows, columns, a leading dimension and a storage order, over
// typed storage. No copy is made; the caller owns the memory.
//
//   std::vector<tcnum::bfloat16_t> a(M * K), b(K * N);   std::vector<float> d(M * N);
//   auto A = tcnum::row_major(a, M, K);        // M×K, row-major
//   auto B = tcnum::col_major(b, K, N);        // K×N stored column by column (B^T row-major)
//   auto D = tcnum::row_major(d, M, N);
//
// Element types a view may hold (element_traits below):
//   * tcnum's value types (half_t, bfloat16_t, tfloat32_t, float_e4m3_t, float_e5m2_t,
//     float32_t): their bits, in their format;
//   * float: fp32 values; as a narrower operand they are converted (see tcnum::Conversion);
//   * raw bits in std::uint8_t / uint16_t / uint32_t: the format is stated when the view is
//     made (row_major(Format::bf16, ptr, rows, cols));
//   * CUDA's __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2 (tcnum/interop/cuda.hpp) and
//     CUTLASS's numeric types (tcnum/interop/cutlass.hpp).
// Any other type: specialise tcnum::element_traits (a trivially copyable type whose object
// representation is the format's storage pattern, 1, 2 or 4 bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/types.hpp"

namespace tcnum {

enum class Layout : std::uint8_t { row_major, col_major };

// bits: an element's object representation is the storage pattern of the view's format.
// real: an element is a float value, converted where an operand needs a narrower format.
enum class ElementKind : std::uint8_t { bits, real };

// What a view needs to know about its element type. `fixed_format`: the type implies its
// format (false for raw integers, whose format the view states).
template <class T>
struct element_traits {
  static constexpr bool known = false;
};
// Traits of a type whose object representation is the bits of format F (tcnum's value
// types; CUDA's and CUTLASS's in the interop headers).
template <Format F>
struct format_bits_traits {
  static constexpr bool known = true;
  static constexpr ElementKind kind = ElementKind::bits;
  static constexpr bool fixed_format = true;
  static constexpr Format format = F;
};
template <Format F>
struct element_traits<Scalar<F>> : format_bits_traits<F> {};
template <>
struct element_traits<float> {
  static constexpr bool known = true;
  static constexpr ElementKind kind = ElementKind::real;
  static constexpr bool fixed_format = true;
  static constexpr Format format = Format::fp32;
};
template <class U>
struct raw_bits_traits {
  static constexpr bool known = true;
  static constexpr ElementKind kind = ElementKind::bits;
  static constexpr bool fixed_format = false;
  static constexpr Format format = Format::fp32;  // placeholder: the view states the format
};
template <>
struct element_traits<std::uint8_t> : raw_bits_traits<std::uint8_t> {};
template <>
struct element_traits<std::uint16_t> : raw_bits_traits<std::uint16_t> {};
template <>
struct element_traits<std::uint32_t> : raw_bits_traits<std::uint32_t> {};

template <class T>
concept ViewElement = element_traits<std::remove_cv_t<T>>::known && std::is_trivially_copyable_v<T> &&
                      (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4);

template <ViewElement T>
struct MatrixView {
  using element_type = T;
  using traits = element_traits<std::remove_cv_t<T>>;

  T* data = nullptr;
  int rows = 0, cols = 0;
  std::ptrdiff_t ld = 0;  // elements between consecutive rows (row-major) or columns (col-major)
  Layout layout = Layout::row_major;
  Format format = traits::format;

  std::ptrdiff_t offset(int i, int j) const {
    return layout == Layout::row_major ? std::ptrdiff_t(i) * ld + j : std::ptrdiff_t(j) * ld + i;
  }
  T& operator()(int i, int j) const { return data[offset(i, j)]; }
  std::size_t size() const { return std::size_t(rows) * std::size_t(cols); }

  // The same memory seen as the transpose: a row-major K×N is a column-major N×K.
  MatrixView transposed() const {
    return {data, cols, rows, ld, layout == Layout::row_major ? Layout::col_major : Layout::row_major, format};
  }
  operator MatrixView<const T>() const
    requires(!std::is_const_v<T>)
  {
    return {data, rows, cols, ld, layout, format};
  }
};

namespace detail {

[[noreturn]] void view_error(const std::string& why);  // throws std::invalid_argument

// Checks shape, leading dimension, pointer and format; fills in the default ld.
void check_view(int rows, int cols, std::ptrdiff_t& ld, Layout layout, bool null_data, Format format,
                bool fixed_format, Format fixed, std::size_t element_bytes);
void check_extent(int rows, int cols, std::ptrdiff_t ld, Layout layout, std::size_t available);

template <class T>
MatrixView<T> make_view(T* data, int rows, int cols, std::ptrdiff_t ld, Layout layout, Format format) {
  using traits = element_traits<std::remove_cv_t<T>>;
  check_view(rows, cols, ld, layout, data == nullptr, format, traits::fixed_format, traits::format, sizeof(T));
  return {data, rows, cols, ld, layout, format};
}

}  // namespace detail

// Views of typed storage (the type implies the format). ld = 0: packed (cols for row-major,
// rows for column-major). Throws std::invalid_argument on a negative size, ld too small, or
// a null pointer with elements.
template <ViewElement T>
MatrixView<T> row_major(T* data, int rows, int cols, std::ptrdiff_t ld = 0) {
  static_assert(element_traits<std::remove_cv_t<T>>::fixed_format,
                "tcnum::row_major: raw integers need their format: row_major(Format::bf16, ptr, rows, cols)");
  return detail::make_view(data, rows, cols, ld, Layout::row_major, element_traits<std::remove_cv_t<T>>::format);
}
template <ViewElement T>
MatrixView<T> col_major(T* data, int rows, int cols, std::ptrdiff_t ld = 0) {
  static_assert(element_traits<std::remove_cv_t<T>>::fixed_format,
                "tcnum::col_major: raw integers need their format: col_major(Format::bf16, ptr, rows, cols)");
  return detail::make_view(data, rows, cols, ld, Layout::col_major, element_traits<std::remove_cv_t<T>>::format);
}

// Views of raw bits: the format is stated and must fit the integer type.
template <ViewElement T>
MatrixView<T> row_major(Format format, T* data, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::make_view(data, rows, cols, ld, Layout::row_major, format);
}
template <ViewElement T>
MatrixView<T> col_major(Format format, T* data, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::make_view(data, rows, cols, ld, Layout::col_major, format);
}

// Views of a std::vector: also checks that the vector holds every element the view reaches.
namespace detail {
template <class View>
View within(View view, int rows, int cols, std::size_t available) {
  check_extent(rows, cols, view.ld, view.layout, available);
  return view;
}
}  // namespace detail
template <ViewElement T>
MatrixView<T> row_major(std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(row_major(v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<const T> row_major(const std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(row_major(v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<T> col_major(std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(col_major(v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<const T> col_major(const std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(col_major(v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<T> row_major(Format format, std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(row_major(format, v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<const T> row_major(Format format, const std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(row_major(format, v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<T> col_major(Format format, std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(col_major(format, v.data(), rows, cols, ld), rows, cols, v.size());
}
template <ViewElement T>
MatrixView<const T> col_major(Format format, const std::vector<T>& v, int rows, int cols, std::ptrdiff_t ld = 0) {
  return detail::within(col_major(format, v.data(), rows, cols, ld), rows, cols, v.size());
}

// A view with its element type erased: what the library's compiled code works on.
struct AnyView {
  const void* data = nullptr;
  void* writable = nullptr;  // null for views of const elements
  int rows = 0, cols = 0;
  std::ptrdiff_t ld = 0;
  Layout layout = Layout::row_major;
  Format format = Format::fp32;
  ElementKind kind = ElementKind::bits;
  int element_bytes = 4;

  std::ptrdiff_t offset(int i, int j) const {
    return layout == Layout::row_major ? std::ptrdiff_t(i) * ld + j : std::ptrdiff_t(j) * ld + i;
  }
  // The element's bits (kind bits) or its float's bits (kind real).
  std::uint32_t load(int i, int j) const {
    const auto* p = static_cast<const unsigned char*>(data) + offset(i, j) * element_bytes;
    switch (element_bytes) {
      case 1: return *p;
      case 2: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
      default: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    }
  }
  void store(int i, int j, std::uint32_t bits) const {
    auto* p = static_cast<unsigned char*>(writable) + offset(i, j) * element_bytes;
    switch (element_bytes) {
      case 1: *p = static_cast<unsigned char>(bits); break;
      case 2: { const auto v = static_cast<std::uint16_t>(bits); std::memcpy(p, &v, 2); break; }
      default: std::memcpy(p, &bits, 4);
    }
  }
};

template <class T>
AnyView erase(const MatrixView<T>& v) {
  AnyView a;
  a.data = v.data;
  if constexpr (!std::is_const_v<T>) a.writable = v.data;
  a.rows = v.rows, a.cols = v.cols, a.ld = v.ld, a.layout = v.layout, a.format = v.format;
  a.kind = element_traits<std::remove_cv_t<T>>::kind;
  a.element_bytes = static_cast<int>(sizeof(T));
  return a;
}

}  // namespace tcnum
