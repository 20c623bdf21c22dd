// Validation of matrix views (tcnum/core/matrix_view.hpp).
#include "tcnum/core/matrix_view.hpp"

namespace tcnum::detail {

void view_error(const std::string& why) { throw std::invalid_argument("tcnum view: " + why); }

void check_view(int rows, int cols, std::ptrdiff_t& ld, Layout layout, bool null_data, Format format,
                bool fixed_format, Format fixed, std::size_t element_bytes) {
  if (rows < 0 || cols < 0)
    view_error("negative size " + std::to_string(rows) + "×" + std::to_string(cols));
  const int contiguous = layout == Layout::row_major ? cols : rows;
  if (ld == 0) ld = contiguous > 0 ? contiguous : 1;
  if (ld < contiguous)
    view_error(std::string(layout == Layout::row_major ? "row-major" : "column-major") + " " + std::to_string(rows) +
               "×" + std::to_string(cols) + " needs a leading dimension of at least " + std::to_string(contiguous) +
               ", given " + std::to_string(ld));
  if (null_data && rows > 0 && cols > 0) view_error("null pointer for a " + std::to_string(rows) + "×" +
                                                    std::to_string(cols) + " matrix");
  if (fixed_format && format != fixed)
    view_error("elements of type " + std::string(name_of(fixed)) + " cannot be viewed as " +
               std::string(name_of(format)));
  if (static_cast<std::size_t>(spec(format).storage_bits) > 8 * element_bytes)
    view_error(std::string(name_of(format)) + " needs " + std::to_string(spec(format).storage_bits) +
               "-bit storage, the elements have " + std::to_string(8 * element_bytes) + " bits");
}

void check_extent(int rows, int cols, std::ptrdiff_t ld, Layout layout, std::size_t available) {
  if (rows == 0 || cols == 0) return;
  const int outer = layout == Layout::row_major ? rows : cols;
  const int inner = layout == Layout::row_major ? cols : rows;
  const auto needed = static_cast<std::size_t>(std::ptrdiff_t(outer - 1) * ld + inner);
  if (needed > available)
    view_error("a " + std::to_string(rows) + "×" + std::to_string(cols) + " view with leading dimension " +
               std::to_string(ld) + " reaches " + std::to_string(needed) + " elements, the vector holds " +
               std::to_string(available));
}

}  // namespace tcnum::detail
