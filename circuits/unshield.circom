pragma circom 2.1.5;

// relay402 privacy pool: spend one note of the pool's Lean incremental Merkle tree, pay `withdrawAmount` and
// `fee` in public, and put the rest into a new (change) note. The protocol (hashes, signal order) is fixed in the
// README section "Incognito"; changing anything here needs a new trusted setup and a new on-chain verifier.

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mux1.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/bitify.circom";

// Root of a LeanIMT (zk-kit `BinaryMerkleRoot` semantics): `depth` is the number of hashing levels of the proof
// (@zk-kit/lean-imt `generateProof` skips levels where the node has no sibling, and so does its index), the root
// is the node after `depth` levels, and the levels above `depth` are ignored. Unlike zk-kit's template, every
// index bit is constrained to 0/1: MultiMux1 with a selector of 2 mixes the children into a value of the
// prover's choice, which would forge membership.
template LeanIMTRoot(MAX_DEPTH) {
    signal input leaf;
    signal input depth;
    signal input indices[MAX_DEPTH];
    signal input siblings[MAX_DEPTH];
    signal output out;

    signal nodes[MAX_DEPTH + 1];
    nodes[0] <== leaf;
    signal roots[MAX_DEPTH];
    var root = 0;

    for (var i = 0; i < MAX_DEPTH; i++) {
        indices[i] * (indices[i] - 1) === 0;

        var isDepth = IsEqual()([depth, i]);
        roots[i] <== isDepth * nodes[i];
        root += roots[i];

        var children[2][2] = [[nodes[i], siblings[i]], [siblings[i], nodes[i]]];
        var pair[2] = MultiMux1(2)(children, indices[i]);
        nodes[i + 1] <== Poseidon(2)(pair);
    }

    // A depth above MAX_DEPTH selects nothing: the root is 0, which the pool never knows.
    var isMaxDepth = IsEqual()([depth, MAX_DEPTH]);
    out <== root + isMaxDepth * nodes[MAX_DEPTH];
}

template Unshield(MAX_DEPTH) {
    // Public, in this order (the verifier's public signals).
    signal input root;
    signal input nullifierHash;
    signal input token;
    signal input withdrawAmount;
    signal input recipient;
    signal input feeRecipient;
    signal input fee;
    signal input changeCommitment;

    // Private.
    signal input amount;
    signal input nullifier;
    signal input secret;
    signal input depth;
    signal input indices[MAX_DEPTH];
    signal input siblings[MAX_DEPTH];
    signal input changeNullifier;
    signal input changeSecret;

    // The spent note is in the tree.
    signal precommitment <== Poseidon(2)([nullifier, secret]);
    signal commitment <== Poseidon(3)([token, amount, precommitment]);
    signal computedRoot <== LeanIMTRoot(MAX_DEPTH)(commitment, depth, indices, siblings);
    root === computedRoot;

    // Its nullifier hash is the one the pool marks as spent.
    signal computedNullifierHash <== Poseidon(1)([nullifier]);
    nullifierHash === computedNullifierHash;

    // Nothing is created: withdrawAmount, fee and change are each below 2^128, so their sum cannot wrap the field
    // and amount = withdrawAmount + fee + change holds over the integers.
    _ <== Num2Bits(128)(withdrawAmount);
    _ <== Num2Bits(128)(fee);
    signal change <== amount - withdrawAmount - fee;
    _ <== Num2Bits(128)(change);

    // The change note, inserted by the pool even when its amount is 0.
    signal changePrecommitment <== Poseidon(2)([changeNullifier, changeSecret]);
    signal computedChangeCommitment <== Poseidon(3)([token, change, changePrecommitment]);
    changeCommitment === computedChangeCommitment;

    // recipient and feeRecipient are bound by being public inputs; the squares make sure the compiler keeps
    // them in the constraint system.
    signal recipientSquare <== recipient * recipient;
    signal feeRecipientSquare <== feeRecipient * feeRecipient;
}

component main {public [root, nullifierHash, token, withdrawAmount, recipient, feeRecipient, fee, changeCommitment]} = Unshield(20);
