// Checks of option values whose messages say what is wrong with the value
// given: CLI11's own report "1e3" for an integer, and "0" for a positive
// number, as "not in range", the latter printing DBL_MAX's 310 digits.
#pragma once
#include <CLI/CLI.hpp>

namespace nmt::app {

// The text is a whole number ("1e3", "1.5" and "abc" are not), and not
// negative when `non_negative`.
CLI::Validator whole_number(bool non_negative);

// The text is a finite number that a float can hold (1e300 cannot).
CLI::Validator finite_number();

// The number is within [min, max]; either side may be unbounded (±infinity
// or beyond ±1e300), and the message then names only the other. With
// `above_min`, min itself is excluded.
CLI::Validator number_range(double min, double max, bool above_min = false);

}  // namespace nmt::app
