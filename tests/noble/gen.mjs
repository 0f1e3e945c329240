#!/usr/bin/env node
/*
 * DESIGN: cross-check vectors for czk from an independent BLS12-381 implementation.
 *
 * This script computes field, curve, encoding and pairing results with @noble/curves (pinned
 * in package.json) and prints one vector per line for tests/xcheck.c to recompute with czk:
 *
 *     <op> <args...> <expected...>
 *
 * Field elements are canonical big-endian hex (96 digits for Fp, 64 for Fr); Fp2/Fp6/Fp12
 * values are their Fp coefficients in tower order (c0.c0.c0, c0.c0.c1, c0.c1.c0, ...).
 * Scalars and exponents are big-endian hex; points are zcash encodings (uncompressed unless
 * the op says otherwise); flags and Frobenius powers are decimal. Lines starting with # are
 * comments; the last line is `end <number of vectors>`, so that a truncated file cannot pass.
 *
 * Every input comes from a seeded xoshiro256** stream (seeded through splitmix64, as czk_rng
 * is), so `--seed S --iters N` reproduces a file byte for byte. Math.random is never used.
 *
 * Most expectations are noble's outputs. The rest are built here from noble's arithmetic,
 * where noble has no such function or refuses the input; a comment line in the output marks
 * each group:
 *   - 1/0 = 0, czk's documented contract for every inversion (noble throws);
 *   - the snarkjs layout (x·2^384 mod q, little-endian; all zeros for infinity) and its
 *     invalid encodings, since noble has no snarkjs codec;
 *   - [k]p for points outside the subgroup and k >= r, by double-and-add over noble's group
 *     law (noble's scalar multiplication takes only k < r), and G2's psi from its formula,
 *     pinned to [x]p on G2;
 *   - pairings with the point at infinity, 1 by bilinearity (noble throws on infinity).
 * Invalid zcash encodings are written only after noble's decoder rejects them too.
 *
 * Usage: node tests/noble/gen.mjs --seed S --iters N > vectors.txt
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';

const { Fp, Fr, Fp2, Fp6, Fp12 } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

/* ---------------------------------------------------------------- arguments */

function usage(msg) {
    if (msg) process.stderr.write(`gen.mjs: ${msg}\n`);
    process.stderr.write('usage: node gen.mjs --seed S --iters N > vectors.txt\n');
    process.exit(2);
}

function parseArgs(argv) {
    let seed = null;
    let iters = 100;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const v = argv[i + 1];
        if (a === '--seed' && v !== undefined) {
            if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) usage(`bad seed '${v}'`);
            seed = BigInt(v);
            if (seed >= 1n << 64n) usage('seed must fit in 64 bits');
            i++;
        } else if (a === '--iters' && v !== undefined) {
            if (!/^[0-9]+$/.test(v) || Number(v) < 1) usage(`bad iteration count '${v}'`);
            iters = Number(v);
            i++;
        } else {
            usage(`unknown argument '${a}'`);
        }
    }
    if (seed === null) usage('--seed is required (the caller picks and records it)');
    return { seed, iters };
}

/* ---------------------------------------------------------------- PRNG */

const M64 = (1n << 64n) - 1n;
const rotl = (x, k) => ((x << k) | (x >> (64n - k))) & M64;

/* xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64. */
class Rng {
    constructor(seed) {
        let x = seed & M64;
        this.s = [];
        for (let i = 0; i < 4; i++) {
            x = (x + 0x9e3779b97f4a7c15n) & M64;
            let z = x;
            z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
            z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
            this.s.push(z ^ (z >> 31n));
        }
    }

    u64() {
        const s = this.s;
        const result = (rotl((s[1] * 5n) & M64, 7n) * 9n) & M64;
        const t = (s[1] << 17n) & M64;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45n);
        return result;
    }

    /* A uniform integer of `n` bits. */
    bits(n) {
        let v = 0n;
        let have = 0;
        while (have < n) {
            v = (v << 64n) | this.u64();
            have += 64;
        }
        return v >> BigInt(have - n);
    }

    /* A uniform integer in [0, n) by rejection. */
    below(n) {
        const len = n.toString(2).length;
        for (;;) {
            const v = this.bits(len);
            if (v < n) return v;
        }
    }

    int(n) {
        return Number(this.below(BigInt(n)));
    }

    pick(arr) {
        return arr[this.int(arr.length)];
    }
}

/* ---------------------------------------------------------------- encoding helpers */

const be = (x, nbytes) => x.toString(16).padStart(2 * nbytes, '0');
const hfp = (x) => be(x, 48);
const hfr = (x) => be(x, 32);
const hfp2 = (a) => `${hfp(a.c0)} ${hfp(a.c1)}`;
const hfp6 = (a) => `${hfp2(a.c0)} ${hfp2(a.c1)} ${hfp2(a.c2)}`;
const hfp12 = (a) => `${hfp6(a.c0)} ${hfp6(a.c1)}`;
const hbytes = (u8) => Buffer.from(u8).toString('hex');
/* Exponents: big-endian hex, whole bytes, at least one byte. */
const hexp = (e) => {
    const s = e.toString(16);
    return s.length % 2 ? `0${s}` : s;
};
const fromHex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));

/* snarkjs/ffjavascript: each coordinate as x·2^384 mod q, 48 little-endian bytes. */
function montLE(x) {
    const m = (x << 384n) % P;
    const out = Buffer.alloc(48);
    let v = m;
    for (let i = 0; i < 48; i++) {
        out[i] = Number(v & 0xffn);
        v >>= 8n;
    }
    return out.toString('hex');
}

const g1u = (pt) => hbytes(pt.toBytes(false));
const g1c = (pt) => hbytes(pt.toBytes(true));
const g2u = (pt) => hbytes(pt.toBytes(false));
const g2c = (pt) => hbytes(pt.toBytes(true));

/* ---------------------------------------------------------------- output */

const lines = [];
const counts = new Map();
function emit(op, ...fields) {
    lines.push(`${op} ${fields.join(' ')}`);
    counts.set(op, (counts.get(op) || 0) + 1);
}
function comment(text) {
    lines.push(`# ${text}`);
}

/* ---------------------------------------------------------------- random values */

function edgeSet(m) {
    return [0n, 1n, 2n, m - 1n, m - 2n, (m - 1n) / 2n, (m + 1n) / 2n];
}
const FP_EDGES = [...edgeSet(P), (1n << 384n) % P, M64];
const FR_EDGES = [...edgeSet(R), (1n << 256n) % R, M64, 7n];

/* Mostly uniform, with some small and some near-modulus values (carries, reductions). */
function randMod(rng, m, edges) {
    const c = rng.int(16);
    if (c === 0) return rng.pick(edges);
    if (c === 1) return rng.bits(64);
    if (c === 2) return m - 1n - rng.bits(64);
    return rng.below(m);
}
const randFp = (rng) => randMod(rng, P, FP_EDGES);
const randFr = (rng) => randMod(rng, R, FR_EDGES);
const randFp2 = (rng) => ({ c0: randFp(rng), c1: randFp(rng) });
const randFp6 = (rng) => ({ c0: randFp2(rng), c1: randFp2(rng), c2: randFp2(rng) });
const randFp12 = (rng) => ({ c0: randFp6(rng), c1: randFp6(rng) });
/* A non-zero scalar in [1, r). */
const randScalar = (rng) => 1n + rng.below(R - 1n);

/* noble throws where czk returns 0 by contract; see the DESIGN note. */
function invOrZero(F, a) {
    return F.is0(a) ? F.ZERO : F.inv(a);
}

/* Square root or null; noble throws for non-squares. */
function trySqrt(F, a) {
    let s;
    try {
        s = F.sqrt(a);
    } catch {
        return null;
    }
    if (!F.eql(F.sqr(s), a)) throw new Error('gen.mjs: noble sqrt does not square back');
    return s;
}

/* ---------------------------------------------------------------- prime fields */

function genPrimeField(rng, iters, name, F, edges, hx, randEl) {
    const m = F.ORDER;
    const binary = [
        ['add', (a, b) => F.add(a, b)],
        ['sub', (a, b) => F.sub(a, b)],
        ['mul', (a, b) => F.mul(a, b)],
    ];
    const unary = [
        ['sqr', (a) => F.sqr(a)],
        ['neg', (a) => F.neg(a)],
        ['inv', (a) => invOrZero(F, a)],
    ];
    comment(`${name}: edge values against each other, then random values; ${name}_inv(0) = 0`);
    for (const [op, f] of binary) {
        for (const a of edges)
            for (const b of edges) emit(`${name}_${op}`, hx(a), hx(b), hx(f(a, b)));
        for (let i = 0; i < iters; i++) {
            const a = randEl(rng);
            const b = rng.int(8) === 0 ? a : randEl(rng);
            emit(`${name}_${op}`, hx(a), hx(b), hx(f(a, b)));
        }
    }
    for (const [op, f] of unary) {
        for (const a of edges) emit(`${name}_${op}`, hx(a), hx(f(a)));
        for (let i = 0; i < iters; i++) {
            const a = randEl(rng);
            emit(`${name}_${op}`, hx(a), hx(f(a)));
        }
    }
    /* sqrt: the flag must agree and czk's root must be ± noble's root. */
    const sqrtLine = (a) => {
        const s = trySqrt(F, a);
        emit(`${name}_sqrt`, hx(a), s === null ? '0' : '1', hx(s === null ? 0n : s));
    };
    for (const a of edges) sqrtLine(a);
    for (let i = 0; i < iters; i++) {
        const a = randEl(rng);
        sqrtLine(rng.int(2) ? F.sqr(a) : a);
    }
    /* pow: exponents of every length up to 384 bits, plus the classic ones. */
    const exps = [0n, 1n, 2n, 3n, m - 1n, m - 2n, (m - 1n) / 2n, m, m + 1n];
    for (const e of exps) {
        const a = randEl(rng);
        emit(`${name}_pow`, hx(a), hexp(e), hx(F.pow(a, e)));
    }
    for (const a of edges) {
        const e = rng.bits(1 + rng.int(384));
        emit(`${name}_pow`, hx(a), hexp(e), hx(F.pow(a, e)));
    }
    for (let i = 0; i < iters; i++) {
        const a = randEl(rng);
        const e = rng.bits(1 + rng.int(384));
        emit(`${name}_pow`, hx(a), hexp(e), hx(F.pow(a, e)));
    }
}

/* ---------------------------------------------------------------- extension fields */

function genFp2(rng, iters) {
    const edges = [];
    for (const a of [0n, 1n, P - 1n, (P - 1n) / 2n])
        for (const b of [0n, 1n, P - 1n, (P + 1n) / 2n]) edges.push({ c0: a, c1: b });
    const binary = [
        ['add', (a, b) => Fp2.add(a, b)],
        ['sub', (a, b) => Fp2.sub(a, b)],
        ['mul', (a, b) => Fp2.mul(a, b)],
    ];
    const unary = [
        ['sqr', (a) => Fp2.sqr(a)],
        ['neg', (a) => Fp2.neg(a)],
        ['inv', (a) => invOrZero(Fp2, a)],
        ['conj', (a) => ({ c0: a.c0, c1: Fp.neg(a.c1) })],
        ['mulnr', (a) => Fp2.mulByNonresidue(a)],
    ];
    comment('fp2: c0 c1 per element; fp2_inv(0) = 0; fp2_mulnr multiplies by u + 1');
    for (const [op, f] of binary) {
        for (let i = 0; i < edges.length; i++) {
            const a = edges[i];
            const b = edges[(i * 7 + 3) % edges.length];
            emit(`fp2_${op}`, hfp2(a), hfp2(b), hfp2(f(a, b)));
        }
        for (let i = 0; i < iters; i++) {
            const a = randFp2(rng);
            const b = rng.int(8) === 0 ? a : randFp2(rng);
            emit(`fp2_${op}`, hfp2(a), hfp2(b), hfp2(f(a, b)));
        }
    }
    for (const [op, f] of unary) {
        for (const a of edges) emit(`fp2_${op}`, hfp2(a), hfp2(f(a)));
        for (let i = 0; i < iters; i++) {
            const a = randFp2(rng);
            emit(`fp2_${op}`, hfp2(a), hfp2(f(a)));
        }
    }
    for (let i = 0; i < iters; i++) {
        const a = randFp2(rng);
        const b = randFp(rng);
        emit('fp2_mul_fp', hfp2(a), hfp(b), hfp2(Fp2.mul(a, b)));
    }
    const sqrtLine = (a) => {
        const s = trySqrt(Fp2, a);
        emit('fp2_sqrt', hfp2(a), s === null ? '0' : '1', hfp2(s === null ? Fp2.ZERO : s));
    };
    for (const a of edges) sqrtLine(a);
    for (let i = 0; i < iters; i++) {
        const a = randFp2(rng);
        const c = rng.int(4);
        /* Squares of elements with c1 = 0 or c0 = 0 reach the special branches of Fp2 sqrt. */
        if (c === 0) sqrtLine(a);
        else if (c === 1) sqrtLine(Fp2.sqr(a));
        else if (c === 2) sqrtLine(Fp2.sqr({ c0: a.c0, c1: 0n }));
        else sqrtLine(Fp2.sqr({ c0: 0n, c1: a.c1 }));
    }
    for (let i = 0; i < Math.max(1, iters >> 2); i++) {
        const a = i === 0 ? Fp2.ZERO : randFp2(rng);
        const e = i === 1 ? 0n : rng.bits(1 + rng.int(384));
        emit('fp2_pow', hfp2(a), hexp(e), hfp2(Fp2.pow(a, e)));
    }
    for (let i = 0; i < iters; i++) {
        const a = randFp2(rng);
        const k = i % 4;
        emit('fp2_frob', hfp2(a), String(k), hfp2(Fp2.frobeniusMap(a, k)));
    }
}

function genFp6(rng, iters) {
    comment('fp6: c0.c0 c0.c1 c1.c0 c1.c1 c2.c0 c2.c1; fp6_inv(0) = 0');
    const n = Math.max(1, iters >> 1);
    const zero = Fp6.ZERO;
    const one = Fp6.ONE;
    for (let i = 0; i < n; i++) {
        const a = i === 0 ? one : randFp6(rng);
        const b = i === 1 ? zero : rng.int(8) === 0 ? a : randFp6(rng);
        emit('fp6_mul', hfp6(a), hfp6(b), hfp6(Fp6.mul(a, b)));
        emit('fp6_sqr', hfp6(a), hfp6(Fp6.sqr(a)));
        const c = i === 2 ? zero : randFp6(rng);
        emit('fp6_inv', hfp6(c), hfp6(invOrZero(Fp6, c)));
        emit('fp6_mulnr', hfp6(a), hfp6(Fp6.mulByNonresidue(a)));
        const k = i % 8; /* 6 and 7 wrap around */
        emit('fp6_frob', hfp6(a), String(k), hfp6(Fp6.frobeniusMap(a, k)));
        const b0 = randFp2(rng);
        const b1 = randFp2(rng);
        /* Sparse products against the dense product, not noble's own sparse routines. */
        emit('fp6_mul01', hfp6(a), hfp2(b0), hfp2(b1),
            hfp6(Fp6.mul(a, { c0: b0, c1: b1, c2: Fp2.ZERO })));
        const sparse1 = { c0: Fp2.ZERO, c1: b1, c2: Fp2.ZERO };
        emit('fp6_mul1', hfp6(a), hfp2(b1), hfp6(Fp6.mul(a, sparse1)));
        emit('fp6_mul_fp2', hfp6(a), hfp2(b0), hfp6(Fp6.mulByFp2(a, b0)));
    }
}

function genFp12(rng, iters) {
    comment('fp12: 12 Fp values in tower order c0.c0.c0 ... c1.c2.c1; fp12_inv(0) = 0');
    const n = Math.max(1, iters >> 1);
    for (let i = 0; i < n; i++) {
        const a = i === 0 ? Fp12.ONE : randFp12(rng);
        const b = i === 1 ? Fp12.ZERO : rng.int(8) === 0 ? a : randFp12(rng);
        emit('fp12_mul', hfp12(a), hfp12(b), hfp12(Fp12.mul(a, b)));
        emit('fp12_sqr', hfp12(b), hfp12(Fp12.sqr(b)));
        const c = i === 2 ? Fp12.ZERO : randFp12(rng);
        emit('fp12_inv', hfp12(c), hfp12(invOrZero(Fp12, c)));
        emit('fp12_conj', hfp12(a), hfp12(Fp12.conjugate(a)));
        /* Powers 1, 2, 3 (the final exponentiation's), and one other of 0..11. */
        for (const k of [1, 2, 3, rng.pick([0, 4, 5, 6, 7, 8, 9, 10, 11])])
            emit('fp12_frob', hfp12(a), String(k), hfp12(Fp12.frobeniusMap(a, k)));
    }
    for (let i = 0; i < n; i++) {
        /* The line-function shape: non-zero only at c0.c0, c0.c1 and c1.c1. */
        const a = randFp12(rng);
        const b0 = randFp2(rng);
        const b1 = randFp2(rng);
        const b4 = randFp2(rng);
        const z = Fp2.ZERO;
        const sparse = { c0: { c0: b0, c1: b1, c2: z }, c1: { c0: z, c1: b4, c2: z } };
        emit('fp12_mul_014', hfp12(a), hfp2(b0), hfp2(b1), hfp2(b4), hfp12(Fp12.mul(a, sparse)));
    }
    const m = Math.max(1, iters >> 2);
    for (let i = 0; i < m; i++) {
        const a = randFp12(rng);
        const e = i === 0 ? 0n : rng.bits(1 + rng.int(384));
        emit('fp12_pow', hfp12(a), hexp(e), hfp12(Fp12.pow(a, e)));
        /* The easy part of the final exponentiation lands in the cyclotomic subgroup. */
        const t = Fp12.mul(Fp12.conjugate(a), Fp12.inv(a));
        const f = Fp12.mul(Fp12.frobeniusMap(t, 2), t);
        emit('fp12_cyclo_sqr', hfp12(f), hfp12(Fp12.sqr(f)));
    }
    for (let i = 0; i < Math.max(1, iters >> 4); i++) {
        const a = randFp12(rng);
        emit('fp12_final_exp', hfp12(a), hfp12(Fp12.finalExponentiate(a)));
    }
}

/* ---------------------------------------------------------------- curves */

/* Affine (x, y) as zcash bytes, bypassing noble's validity checks (for off-subgroup points). */
function rawG1(x, y, compressed) {
    if (compressed) {
        const b = fromHex(hfp(x));
        b[0] |= 0x80 | (y > (P - 1n) / 2n ? 0x20 : 0);
        return hbytes(b);
    }
    return hfp(x) + hfp(y);
}
const fp2be = (a) => hfp(a.c1) + hfp(a.c0);
/* zcash sort bit for G2: y.c1 decides unless it is 0, then y.c0. */
function g2SortBit(y) {
    const part = y.c1 !== 0n ? y.c1 : y.c0;
    return part > (P - 1n) / 2n;
}
function rawG2(x, y, compressed) {
    if (compressed) {
        const b = fromHex(fp2be(x));
        b[0] |= 0x80 | (g2SortBit(y) ? 0x20 : 0);
        return hbytes(b);
    }
    return fp2be(x) + fp2be(y);
}

/* Decoder rejections are recorded only after noble rejects the same bytes. */
function emitBad(op, Point, kind, hex) {
    let accepted = false;
    try {
        Point.fromBytes(fromHex(hex));
        accepted = true;
    } catch {
        /* expected */
    }
    if (accepted) throw new Error(`gen.mjs bug: noble accepts ${op} ${kind} ${hex}`);
    emit(op, kind, hex);
}

function setFlags(hex, flags) {
    const b = fromHex(hex);
    b[0] = (b[0] & 0x1f) | flags;
    return hbytes(b);
}

/* [k]p by double-and-add over noble's group law, for points outside the subgroup and k >= r. */
function mulPlain(Point, p, k) {
    let acc = Point.ZERO;
    for (let i = BigInt(k.toString(2).length) - 1n; i >= 0n; i--) {
        acc = acc.double();
        if ((k >> i) & 1n) acc = acc.add(p);
    }
    return acc;
}

/* A point of the curve outside the prime-order subgroup, from a random x. */
function offSubgroupPoint(rng, g) {
    const { Point, F, randF, B } = g;
    for (;;) {
        const x = randF(rng);
        const y = trySqrt(F, F.add(F.mul(F.sqr(x), x), B));
        if (y === null) continue;
        const pt = Point.fromAffine({ x, y: rng.int(2) ? y : F.neg(y) });
        if (!pt.isTorsionFree()) return pt;
    }
}

/* psi on E'(Fp2): (conj(x)·c_x, conj(y)·c_y), c_x = (u+1)^-((q-1)/3), c_y = (u+1)^-((q-1)/2). */
const XI = { c0: 1n, c1: 1n };
const PSI_CX = Fp2.inv(Fp2.pow(XI, (P - 1n) / 3n));
const PSI_CY = Fp2.inv(Fp2.pow(XI, (P - 1n) / 2n));
const conj = (a) => ({ c0: a.c0, c1: Fp.neg(a.c1) });
function psi(pt) {
    if (pt.is0()) return pt;
    const { x, y } = pt.toAffine();
    return G2.fromAffine({ x: Fp2.mul(conj(x), PSI_CX), y: Fp2.mul(conj(y), PSI_CY) });
}
const BLS_X_ABS = 0xd201000000010000n; /* x = -BLS_X_ABS */

function genGroup(rng, iters, g) {
    const { name, Point, u, c, snark, raw, coords, F, randF, B } = g;
    const O = Point.ZERO;
    const Gen = Point.BASE;
    const n = Math.max(2, iters >> 1);
    const ue = (pt) => raw(pt.toAffine().x, pt.toAffine().y, false); /* unchecked encoding */
    comment(`${name}: zcash points; ${name}_snarkjs built here (x·2^384 mod q, little-endian)`);
    emit(`${name}_gen`, u(Gen), c(Gen));
    emit(`${name}_enc`, u(O), c(O));
    emit(`${name}_enc`, u(Gen), c(Gen));
    for (const k of [0n, 1n, 2n, R - 1n, R - 2n, (R - 1n) / 2n, (R + 1n) / 2n])
        emit(`${name}_mulgen`, hfr(k), u(Gen.multiplyUnsafe(k)));
    for (let i = 0; i < n; i++) {
        const k1 = randScalar(rng);
        const k2 = randScalar(rng);
        const k3 = rng.int(8) === 0 ? rng.pick([0n, 1n, 2n, R - 1n, R - 2n]) : randScalar(rng);
        const p = Gen.multiplyUnsafe(k1);
        const q = Gen.multiplyUnsafe(k2);
        emit(`${name}_mulgen`, hfr(k1), u(p));
        emit(`${name}_enc`, u(p), c(p));
        emit(`${name}_snarkjs`, u(p), snark(p));
        emit(`${name}_add`, u(p), u(q), u(p.add(q)));
        emit(`${name}_dbl`, u(p), u(p.double()));
        emit(`${name}_neg`, u(p), u(p.negate()));
        emit(`${name}_mul`, u(p), hfr(k3), u(p.multiplyUnsafe(k3)));
        if (i < 4) {
            /* Doubling reached through add, cancellation, and the identity on either side. */
            emit(`${name}_add`, u(p), u(p), u(p.double()));
            emit(`${name}_add`, u(p), u(p.negate()), u(O));
            emit(`${name}_add`, u(p), u(O), u(p));
            emit(`${name}_add`, u(O), u(q), u(q));
            for (const k of [0n, 1n, 2n, R - 1n, R - 2n])
                emit(`${name}_mul`, u(p), hfr(k), u(p.multiplyUnsafe(k)));
        }
    }
    emit(`${name}_add`, u(O), u(O), u(O));
    emit(`${name}_dbl`, u(O), u(O));
    emit(`${name}_neg`, u(O), u(O));
    emit(`${name}_mul`, u(O), hfr(randScalar(rng)), u(O));
    emit(`${name}_snarkjs`, u(Gen), snark(Gen));
    comment(`${name}_snarkjs: infinity is all zero bytes (czk's documented snarkjs layout)`);
    emit(`${name}_snarkjs`, u(O), '00'.repeat(fromHex(u(O)).length));

    /*
     * Points of the whole curve (outside the subgroup): scalar multiplication by integers of up
     * to 256 bits (k >= r included), cofactor clearing, and for G2 the endomorphism psi.
     */
    const na = Math.max(2, iters >> 3);
    comment(`${name}_mul_any: off-subgroup p, 256-bit k, [k]p by double-and-add`);
    if (name === 'g2') comment('g2_psi: psi from its formula, checked against [x]p on G2');
    for (let i = 0; i < na; i++) {
        const p = offSubgroupPoint(rng, g);
        const k = i === 0 ? R : i === 1 ? R - 1n : rng.bits(256);
        emit(`${name}_mul_any`, ue(p), be(k, 32), ue(mulPlain(Point, p, k)));
        const cc = p.clearCofactor();
        if (!cc.isTorsionFree()) throw new Error('gen.mjs bug: cofactor clearing');
        emit(`${name}_clear_cofactor`, ue(p), u(cc));
        if (name === 'g2') {
            emit('g2_psi', ue(p), ue(psi(p)));
            const s = Gen.multiplyUnsafe(randScalar(rng));
            const ps = psi(s);
            /* On G2, psi acts as [x]; this pins the JS psi above to the math. */
            if (!ps.equals(s.multiplyUnsafe(BLS_X_ABS).negate()))
                throw new Error('gen.mjs bug: psi');
            emit('g2_psi', u(s), u(ps));
        }
    }

    /* Invalid zcash encodings: every one is rejected by noble before it is written. */
    const bad = `${name}_bad`;
    const nb = Math.max(2, iters >> 3);
    const rhs = (x) => F.add(F.mul(F.sqr(x), x), B);
    comment(`${bad} <kind> <bytes>: flags, infinity, zero, range, notoncurve, nosqrt, subgroup`);
    for (let i = 0; i < nb; i++) {
        const p = Gen.multiplyUnsafe(randScalar(rng)).toAffine();
        /* Uncompressed point off the curve. */
        emitBad(bad, Point, 'notoncurve', raw(p.x, F.add(p.y, F.ONE), false));
        /* Compressed x with no y: x^3 + b is not a square. */
        for (;;) {
            const x = randF(rng);
            if (trySqrt(F, rhs(x)) === null) {
                emitBad(bad, Point, 'nosqrt', raw(x, F.ZERO, true));
                break;
            }
        }
        /* On the curve but outside the prime-order subgroup. */
        const off = offSubgroupPoint(rng, g).toAffine();
        emitBad(bad, Point, 'subgroup', raw(off.x, off.y, false));
        emitBad(bad, Point, 'subgroup', raw(off.x, off.y, true));
        /* Flag combinations the encoding forbids. */
        const uu = u(Gen.multiplyUnsafe(randScalar(rng)));
        const cc = c(Gen.multiplyUnsafe(randScalar(rng)));
        emitBad(bad, Point, 'flags', setFlags(uu, 0x20)); /* sort bit on uncompressed */
        emitBad(bad, Point, 'flags', setFlags(uu, 0x80)); /* compressed flag, 2x length */
        emitBad(bad, Point, 'flags', setFlags(uu, 0xa0));
        emitBad(bad, Point, 'flags', setFlags(cc, 0x00)); /* no compressed flag, 1x length */
        emitBad(bad, Point, 'flags', setFlags(cc, 0x20));
        emitBad(bad, Point, 'flags', setFlags(u(O), 0x60)); /* infinity + sort */
        emitBad(bad, Point, 'flags', setFlags(c(O), 0xe0));
        emitBad(bad, Point, 'flags', setFlags(u(O), 0xc0)); /* compressed infinity, 2x length */
        emitBad(bad, Point, 'flags', setFlags(c(O), 0x40)); /* uncompressed infinity, 1x length */
        /* Infinity flag with any other bit set. */
        const junk = (hex) => {
            const b = fromHex(hex);
            const at = rng.int(b.length);
            b[at] |= 1 << (at === 0 ? rng.int(5) : rng.int(8));
            return hbytes(b);
        };
        emitBad(bad, Point, 'infinity', junk(u(O)));
        emitBad(bad, Point, 'infinity', junk(c(O)));
        /* A valid point's bytes with the infinity flag added. */
        emitBad(bad, Point, 'infinity', setFlags(uu, 0x40));
    }
    /* The all-zero uncompressed payload without the infinity flag: (0, 0) is not on the curve. */
    emitBad(bad, Point, 'zero', '00'.repeat(fromHex(u(O)).length));
    /* Coordinates >= q: one coordinate replaced by itself + q where that fits in 381 bits. */
    let made = 0;
    for (let tries = 0; made < nb && tries < 1000 * nb; tries++) {
        const pt = Gen.multiplyUnsafe(randScalar(rng));
        const vals = coords(pt.toAffine()); /* Fp values in encoding order */
        const idx = rng.int(vals.length);
        const v = vals[idx];
        if (v + P >= 1n << 381n) continue;
        const swap = (hex, flags) => {
            const h = hex.slice(0, 96 * idx) + hfp(v + P) + hex.slice(96 * idx + 96);
            return setFlags(h, flags);
        };
        emitBad(bad, Point, 'range', swap(u(pt), 0x00));
        if (idx < vals.length / 2) {
            const cc = c(pt);
            emitBad(bad, Point, 'range', swap(cc, fromHex(cc)[0] & 0xe0));
        }
        made++;
    }
    /* x = q exactly, in both forms. */
    emitBad(bad, Point, 'range', setFlags(hfp(P) + '00'.repeat(fromHex(u(Gen)).length - 48), 0));
    emitBad(bad, Point, 'range', setFlags(hfp(P) + '00'.repeat(fromHex(c(Gen)).length - 48), 0x80));

    /*
     * Invalid snarkjs encodings, built here (noble has no snarkjs codec): a Montgomery value
     * >= q, a point off the curve, a point outside the subgroup (noble's isTorsionFree says so).
     */
    const sbad = `${name}_snarkjs_bad`;
    comment(`${sbad} <kind> <bytes>: range, notoncurve, subgroup (built here)`);
    for (let i = 0; i < nb; i++) {
        const pt = Gen.multiplyUnsafe(randScalar(rng));
        const s = snark(pt);
        const idx = rng.int(s.length / 96);
        const over = P + rng.below((1n << 384n) - P);
        const le = Buffer.from(be(over, 48), 'hex').reverse().toString('hex');
        emit(sbad, 'range', s.slice(0, 96 * idx) + le + s.slice(96 * idx + 96));
        const a = pt.toAffine();
        const off = snarkRaw(g, a.x, F.add(a.y, F.ONE));
        emit(sbad, 'notoncurve', off);
        const sub = offSubgroupPoint(rng, g).toAffine();
        emit(sbad, 'subgroup', snarkRaw(g, sub.x, sub.y));
    }
}

/* snarkjs bytes of raw coordinates (no validity checks). */
function snarkRaw(g, x, y) {
    if (g.name === 'g1') return montLE(x) + montLE(y);
    return montLE(x.c0) + montLE(x.c1) + montLE(y.c0) + montLE(y.c1);
}

function genCurves(rng, iters) {
    genGroup(rng, iters, {
        name: 'g1',
        Point: G1,
        u: g1u,
        c: g1c,
        snark: (p) => {
            const a = p.toAffine();
            return montLE(a.x) + montLE(a.y);
        },
        raw: rawG1,
        coords: (a) => [a.x, a.y],
        F: Fp,
        randF: (rng) => rng.below(P),
        B: 4n,
    });
    genGroup(rng, iters, {
        name: 'g2',
        Point: G2,
        u: g2u,
        c: g2c,
        snark: (p) => {
            const a = p.toAffine();
            return montLE(a.x.c0) + montLE(a.x.c1) + montLE(a.y.c0) + montLE(a.y.c1);
        },
        raw: rawG2,
        coords: (a) => [a.x.c1, a.x.c0, a.y.c1, a.y.c0],
        F: Fp2,
        randF: (rng) => ({ c0: rng.below(P), c1: rng.below(P) }),
        B: { c0: 4n, c1: 4n },
    });
}

/* ---------------------------------------------------------------- pairings */

function genPairings(rng, iters) {
    const n = Math.max(2, Math.round(iters / 12));
    const g1 = G1.BASE;
    const g2 = G2.BASE;
    const isOne = (f) => Fp12.eql(f, Fp12.ONE);
    comment('pair: e(P, Q) as 12 Fp values; pair_check n (P Q)*n 0/1; pair_prod n (P Q)*n Fp12');
    emit('pair', g1u(g1), g2u(g2), hfp12(bls12_381.pairing(g1, g2)));
    for (let i = 0; i < n; i++) {
        const p = g1.multiplyUnsafe(randScalar(rng));
        const q = g2.multiplyUnsafe(randScalar(rng));
        emit('pair', g1u(p), g2u(q), hfp12(bls12_381.pairing(p, q)));
    }
    comment('e(O, Q) = e(P, O) = 1 by bilinearity (noble refuses the point at infinity)');
    emit('pair', g1u(G1.ZERO), g2u(g2), hfp12(Fp12.ONE));
    emit('pair', g1u(g1), g2u(G2.ZERO), hfp12(Fp12.ONE));

    const check = (pairs) => {
        const f = bls12_381.pairingBatch(pairs.map(([a, b]) => ({ g1: a, g2: b })));
        const fields = pairs.flatMap(([a, b]) => [g1u(a), g2u(b)]);
        emit('pair_check', String(pairs.length), ...fields, isOne(f) ? '1' : '0');
    };
    for (let i = 0; i < n; i++) {
        const a = randScalar(rng);
        const b = randScalar(rng);
        const p = g1.multiplyUnsafe(randScalar(rng));
        const q = g2.multiplyUnsafe(randScalar(rng));
        const ab = Fr.mul(a, b);
        /* e(aP, bQ) · e(-ab·P, Q) = 1, and 0 once any part is perturbed. */
        check([[p.multiplyUnsafe(a), q.multiplyUnsafe(b)], [p.multiplyUnsafe(Fr.neg(ab)), q]]);
        const which = i % 3;
        const first = [p.multiplyUnsafe(a), q.multiplyUnsafe(b)];
        if (which === 0) check([first, [p.multiplyUnsafe(Fr.neg(Fr.add(ab, 1n))), q]]);
        else if (which === 1) check([first, [p.multiplyUnsafe(Fr.neg(ab)), q.double()]]);
        else check([first, [p.multiplyUnsafe(ab), q]]);
        if (i < 2) {
            /* Three pairs: e(aP, bQ) · e(cP, dQ) · e(-(ab + cd)P, Q) = 1. */
            const cc = randScalar(rng);
            const d = randScalar(rng);
            const s = Fr.neg(Fr.add(ab, Fr.mul(cc, d)));
            check([
                [p.multiplyUnsafe(a), q.multiplyUnsafe(b)],
                [p.multiplyUnsafe(cc), q.multiplyUnsafe(d)],
                [p.multiplyUnsafe(s), q],
            ]);
            check([[p, q]]);
        }
    }
    comment('pair_check: pairs with the point at infinity contribute 1; no pairs give 1');
    emit('pair_check', '0', '1');
    {
        const p = g1.multiplyUnsafe(randScalar(rng));
        const q = g2.multiplyUnsafe(randScalar(rng));
        const fields = [g1u(G1.ZERO), g2u(q), g1u(p), g2u(G2.ZERO)];
        fields.push(g1u(p), g2u(q), g1u(p.negate()), g2u(q));
        emit('pair_check', '4', ...fields, '1');
        emit('pair_check', '3', ...fields.slice(0, 6), '0');
    }
    const m = Math.max(1, n >> 1);
    for (let i = 0; i < m; i++) {
        const k = 2 + (i % 3);
        const pairs = [];
        for (let j = 0; j < k; j++) {
            const x = g1.multiplyUnsafe(randScalar(rng));
            pairs.push({ g1: x, g2: g2.multiplyUnsafe(randScalar(rng)) });
        }
        const f = bls12_381.pairingBatch(pairs);
        emit('pair_prod', String(k), ...pairs.flatMap((x) => [g1u(x.g1), g2u(x.g2)]), hfp12(f));
    }
}

/* ---------------------------------------------------------------- main */

function main() {
    const { seed, iters } = parseArgs(process.argv.slice(2));
    const rng = new Rng(seed);
    comment(`czk cross-check vectors from @noble/curves; seed ${seed} iters ${iters}`);
    comment(`reproduce: node tests/noble/gen.mjs --seed ${seed} --iters ${iters}`);
    genPrimeField(rng, iters, 'fp', Fp, FP_EDGES, hfp, randFp);
    genPrimeField(rng, iters, 'fr', Fr, FR_EDGES, hfr, randFr);
    genFp2(rng, iters);
    genFp6(rng, iters);
    genFp12(rng, iters);
    genCurves(rng, iters);
    genPairings(rng, iters);
    const total = lines.filter((l) => !l.startsWith('#')).length;
    for (const [op, k] of [...counts].sort()) comment(`count ${op} ${k}`);
    lines.push(`end ${total}`);
    process.stdout.write(lines.join('\n') + '\n');
}

main();
