/*
 * Every unit test, as CZK_TEST_ENTRY(name, timeout_seconds). Each module keeps its own list
 * next to its code; this file only gathers them. CMake reads these lists to register one
 * ctest entry per test, so keep one entry per line.
 */
#include "util/util_tests.h"
#include "field/field_tests.h"
#include "curve/curve_tests.h"
#include "pairing/pairing_tests.h"
#include "poly/poly_tests.h"
#include "msm/msm_tests.h"
#include "r1cs/r1cs_tests.h"
#include "groth16/groth16_tests.h"
#include "formats/snarkjs_tests.h"
#include "formats/bellperson_tests.h"
#include "filecoin/hash/poseidon_tests.h"
#include "filecoin/gadgets/cs_tests.h"
#include "filecoin/io/curio_post_tests.h"
#include "filecoin/io/vanilla_tests.h"
#include "filecoin/post/post_tests.h"
#include "filecoin/io/params_tests.h"
#include "filecoin/gadgets/sha256_gadget_tests.h"
#include "filecoin/porep/sdr_tests.h"
#include "filecoin/io/c1_tests.h"
#include "filecoin/porep/porep_tests.h"
#include "filecoin/snap/snap_tests.h"
#include "engine/engine_tests.h"
#include "kinds/filecoin_tests.h"
