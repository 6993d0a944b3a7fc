// unit/device_matrix: the cases of test_device_matrix that need no OpenCL device (the unit tier, built by unit_tests):
// how a transfer of a column-major matrix is cut into commands.
#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"

using Eigen::Index;

// Drivers other than CI's check rects more strictly than PoCL (NVIDIA's refuses a rect whose last whole pitch row
// reaches past the buffer), so the commands a transfer is cut into are checked here, without a device: each element
// of the matrix moved once, to its place; no rect crossing a pitch or ending, in whole pitch rows, past the matrix's
// last element; one rect where one is enough.
TEST_CASE("transfers are cut into rects and runs that stay within the matrix's last element and move each once",
          "[unit][transfers]") {
  constexpr std::size_t scalar = 4;
  for (Index ld = 1; ld <= 9; ++ld) {
    for (Index rows = 1; rows <= ld; ++rows) {
      for (Index cols = 1; cols <= 4; ++cols) {
        for (Index offset = 0; offset <= 2 * ld + 1; ++offset) {
          INFO("offset " << offset << ", ld " << ld << ", " << rows << "x" << cols);
          const std::size_t span_end = scalar * static_cast<std::size_t>(offset + (cols - 1) * ld + rows);
          std::vector<int> moved(static_cast<std::size_t>(rows * cols), 0);
          bool all_inside = true, placed = true;
          const auto move = [&](std::size_t device_byte, std::size_t host_byte) {
            const std::size_t element = device_byte / scalar, host_element = host_byte / scalar;
            const Index at = static_cast<Index>(element) - offset;
            const Index row = at % ld, col = at / ld;
            if (at < 0 || row >= rows || col >= cols) {
              all_inside = false;
              return;
            }
            if (static_cast<Index>(host_element) != row + col * rows) placed = false;
            ++moved[static_cast<std::size_t>(row + col * rows)];
          };
          const std::vector<tilegemm::detail::TransferPart> parts =
              tilegemm::detail::transfer_parts(offset, ld, rows, cols, scalar);
          for (const tilegemm::detail::TransferPart& part : parts) {
            const std::size_t host_pitch = scalar * static_cast<std::size_t>(rows);  // a dense destination
            if (part.contiguous) {
              CHECK(part.origin[0] + part.region[0] <= span_end);
              for (std::size_t b = 0; b < part.region[0]; b += scalar)
                move(part.origin[0] + b, part.host_column * host_pitch + part.host_x + b);
              continue;
            }
            CHECK(part.pitch == scalar * static_cast<std::size_t>(ld));
            CHECK(part.origin[0] + part.region[0] <= part.pitch);
            CHECK((part.origin[1] + part.region[1]) * part.pitch <= span_end);
            CHECK(part.region[2] == 1);
            for (std::size_t c = 0; c < part.region[1]; ++c) {
              for (std::size_t b = 0; b < part.region[0]; b += scalar) {
                move((part.origin[1] + c) * part.pitch + part.origin[0] + b,
                     (part.host_column + c) * host_pitch + part.host_x + b);
              }
            }
          }
          CHECK(all_inside);
          CHECK(placed);
          CHECK(std::count(moved.begin(), moved.end(), 1) == rows * cols);
          const bool one_rect_enough =
              offset % ld + rows <= ld && (offset / ld + cols) * ld <= offset + (cols - 1) * ld + rows;
          if (one_rect_enough) CHECK(parts.size() == 1);
        }
      }
    }
  }
  CHECK(tilegemm::detail::transfer_parts(0, 5, 0, 3, scalar).empty());
  CHECK(tilegemm::detail::transfer_parts(0, 5, 5, 0, scalar).empty());
}
