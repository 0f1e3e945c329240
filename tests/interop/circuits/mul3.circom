pragma circom 2.0.0;

// The smallest useful case: one public output, one public input, a few constraints.
template Mul3() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal ab;
    ab <== a * b;
    out <== ab * c;
}

component main {public [c]} = Mul3();
