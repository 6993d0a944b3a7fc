// gemm/set_arguments: sets a kernel's arguments group by group from the tables its text is spelled from
// (kernels/kernel_arguments.hpp), checking at compile time that the host passes one value of the right kind for each.
#pragma once

#include <cstddef>
#include <utility>

#include "../kernels/kernel_arguments.hpp"
#include "../runtime/launch.hpp"
#include "../runtime/opencl.hpp"

namespace tilegemm::detail {

// What the host passes for each kind of argument: an int, the product's scalar or a buffer; nothing else.
template <class T>
inline constexpr ArgumentKind host_argument_kind = ArgumentKind::unknown;
template <>
inline constexpr ArgumentKind host_argument_kind<int> = ArgumentKind::integer;
template <>
inline constexpr ArgumentKind host_argument_kind<ScalarValue> = ArgumentKind::scalar;
template <>
inline constexpr ArgumentKind host_argument_kind<cl::Buffer> = ArgumentKind::buffer;

template <const auto& Table, class... Values, std::size_t... I>
constexpr bool values_match(std::index_sequence<I...>) {
  return ((argument_kind(Table[I].type) == host_argument_kind<Values>)&&...);
}

// Sets Table's arguments from index `first` on, in its order; returns the index after the last one.
template <const auto& Table, class... Values>
cl_uint set_arguments(KernelLease& kernel, cl_uint first, const Values&... values) {
  static_assert(sizeof...(Values) == Table.size(), "one value for each argument of the kernel's table");
  static_assert(values_match<Table, Values...>(std::index_sequence_for<Values...>{}),
                "each value is an int, a ScalarValue or a cl::Buffer, as the table's type for it says");
  return set_args_from(kernel, first, values...);
}

}  // namespace tilegemm::detail
