pragma circom 2.0.0;

// A tiny test circuit for czk's snarkjs readers: products, sums with negative and large
// coefficients, one public input (a), one output (out) and two private inputs (b, c).
template Mul() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal t;
    signal v;
    t <== a * b;
    v <== (a + 2 * b) * (c - 7);
    out <== t * c + 5 * v - 3;
}

component main {public [a]} = Mul();
