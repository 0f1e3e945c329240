/*
 * How thoroughly the key readers (zkey.h, bellperson.h) check the big point vectors of a
 * proving key.
 */
#ifndef CZK_FORMATS_KEY_CHECK_H
#define CZK_FORMATS_KEY_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The verifying key's points are always checked in full. CURVE is what bellperson's mapped
 * parameters do and is safe for proving: a proof made from off-subgroup key points fails the
 * verification every czk proof gets before it leaves (the verifier checks the proof's points in
 * full).
 */
typedef enum czk_key_check {
    CZK_KEY_CHECK_FULL = 0,  /* range, on the curve, in the prime-order subgroup */
    CZK_KEY_CHECK_CURVE = 1, /* range and on the curve (about 30x faster) */
} czk_key_check;

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_KEY_CHECK_H */
