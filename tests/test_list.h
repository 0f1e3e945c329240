/*
 * Every unit test, as CZK_TEST_ENTRY(name, timeout_seconds). Each module keeps its own list
 * next to its code; this file only gathers them. CMake reads these lists to register one
 * ctest entry per test, so keep one entry per line.
 */
#include "util/util_tests.h"
#include "field/field_tests.h"
#include "curve/curve_tests.h"
#include "pairing/pairing_tests.h"
