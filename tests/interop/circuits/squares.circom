pragma circom 2.0.0;

// A chain of squarings: dense, uniformly random-looking witness values, about 10,000
// constraints (the shape issue 3 benchmarks czk against snarkjs with).
template Squares(n) {
    signal input x;
    signal input k;
    signal output y;
    signal s[n + 1];
    s[0] <== x * k;
    for (var i = 0; i < n; i++) {
        s[i + 1] <== s[i] * s[i];
    }
    y <== s[n];
}

component main {public [k]} = Squares(10000);
