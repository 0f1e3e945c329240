pragma circom 2.0.0;

// Bit decompositions: most witness values are 0 or 1, as in the SHA-256 gadgets of Filecoin
// circuits. Two public inputs and one public output.
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

template Bits(m, n) {
    signal input in[m];
    signal input salt;
    signal input pepper;
    signal output out;
    component nb[m];
    signal acc[m + 1];
    acc[0] <== salt * pepper;
    for (var j = 0; j < m; j++) {
        nb[j] = Num2Bits(n);
        nb[j].in <== in[j];
        // Keep one product per word so that the output depends on every input.
        acc[j + 1] <== acc[j] * nb[j].out[j % n] + in[j];
    }
    out <== acc[m];
}

component main {public [salt, pepper]} = Bits(48, 64);
