// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {InternalLeanIMT, LeanIMTData} from "@zk-kit/lean-imt.sol/InternalLeanIMT.sol";
import {PoseidonT4} from "poseidon-solidity/PoseidonT4.sol";

/// @notice The snarkjs Groth16 verifier of circuits/unshield.circom (contracts/UnshieldVerifier.sol).
interface IUnshieldVerifier {
    function verifyProof(
        uint256[2] calldata a,
        uint256[2][2] calldata b,
        uint256[2] calldata c,
        uint256[8] calldata publicSignals
    ) external view returns (bool);
}

/// @notice The tokens the pool accepts are the Relayer's whitelist (one list per network, kept by its owner).
interface ITokenWhitelist {
    function isTokenWhitelisted(address token) external view returns (bool);
}

/// @title relay402 privacy pool
/// @notice A multi-token pool of hidden notes. `shield` deposits tokens and inserts the note's commitment
/// `Poseidon(token, amount, Poseidon(nullifier, secret))` into a Lean incremental Merkle tree; `unshield` proves
/// in zero knowledge that it knows a note of the tree, without saying which, pays a public recipient and fee
/// recipient, and inserts a change note for the rest (always, even of 0, so that a spend does not tell whether
/// the note was emptied). Each note's `Poseidon(nullifier)` can be spent once.
/// @dev No owner and no upgrade: the verifier and the whitelist source are fixed at deployment, so the address
/// (CREATE2) is the same on every network. Leaves are the commitments in insertion order, as `LeafInserted`
/// events tell them; a LeanIMT (zk-kit's) built from them has the pool's root.
contract PrivacyPool {
    using SafeERC20 for IERC20;

    struct Proof {
        uint256[2] a;
        uint256[2][2] b;
        uint256[2] c;
    }

    uint256 public constant SNARK_SCALAR_FIELD =
        21888242871839275222246405745257275088548364400416034343698204186575808495617;
    /// @notice Amounts are below 2^128, the circuit's range.
    uint256 public constant MAX_AMOUNT = type(uint128).max;
    /// @notice The circuit proves membership in a tree of at most this depth.
    uint256 public constant MAX_TREE_DEPTH = 20;
    uint256 internal constant MAX_LEAVES = 2 ** MAX_TREE_DEPTH;
    /// @notice A proof may use any of the last this many roots, so that inserts racing a proof do not void it.
    uint256 public constant ROOT_HISTORY_SIZE = 64;

    IUnshieldVerifier public immutable verifier;
    ITokenWhitelist public immutable whitelist;

    LeanIMTData internal _tree;
    /// @dev The tree size at which a root was current (1-based; 0 = never a root), for an O(1) history check.
    mapping(uint256 root => uint256 size) internal _rootSize;
    mapping(uint256 nullifierHash => bool) public nullifierSpent;

    /// @notice Every insert into the tree, shields and change notes alike, in order: what a client syncs.
    event LeafInserted(uint256 indexed leafIndex, uint256 commitment, uint256 root);
    event Shielded(address indexed token, address indexed from, uint256 amount, uint256 leafIndex, uint256 commitment);
    event Unshielded(
        address indexed token,
        address indexed recipient,
        uint256 withdrawAmount,
        address feeRecipient,
        uint256 fee,
        uint256 nullifierHash,
        uint256 changeLeafIndex,
        uint256 changeCommitment
    );

    error TokenNotWhitelisted(address token);
    error InvalidAmount();
    error InvalidPrecommitment();
    error AmountNotReceived(uint256 expected, uint256 received);
    error TreeFull();
    error UnknownRoot(uint256 root);
    error NullifierAlreadySpent(uint256 nullifierHash);
    error InvalidProof();
    error ZeroAddress();

    constructor(IUnshieldVerifier verifier_, ITokenWhitelist whitelist_) {
        verifier = verifier_;
        whitelist = whitelist_;
    }

    /// @notice Deposits `amount` of `token` (pulled from the caller, who approved the pool) as a new note.
    /// @param precommitment `Poseidon(nullifier, secret)` of the note. The pool computes the commitment itself,
    /// so that the amount inside the note is the amount deposited: a caller-supplied commitment could claim more.
    /// @return leafIndex The note's position in the tree.
    /// @return commitment `Poseidon(token, amount, precommitment)`, the new leaf.
    function shield(address token, uint256 amount, uint256 precommitment)
        external
        returns (uint256 leafIndex, uint256 commitment)
    {
        if (!whitelist.isTokenWhitelisted(token)) revert TokenNotWhitelisted(token);
        if (amount == 0 || amount > MAX_AMOUNT) revert InvalidAmount();
        if (precommitment == 0 || precommitment >= SNARK_SCALAR_FIELD) revert InvalidPrecommitment();

        // A token that charges on transfer would leave notes worth more than the pool holds.
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        uint256 received = IERC20(token).balanceOf(address(this)) - before;
        if (received != amount) revert AmountNotReceived(amount, received);

        commitment = PoseidonT4.hash([uint256(uint160(token)), amount, precommitment]);
        leafIndex = _insert(commitment);
        emit Shielded(token, msg.sender, amount, leafIndex, commitment);
    }

    /// @notice Spends a note: pays `withdrawAmount` to `recipient` and `fee` to `feeRecipient`, and inserts
    /// `changeCommitment`, the note of `amount - withdrawAmount - fee`. Everything but the proof is public input
    /// of the proof, so nobody can redirect the payment. Not gated by the whitelist: a note stays withdrawable
    /// after its token leaves the whitelist.
    /// @return changeLeafIndex The change note's position in the tree.
    function unshield(
        Proof calldata proof,
        uint256 root,
        uint256 nullifierHash,
        address token,
        uint256 withdrawAmount,
        address recipient,
        address feeRecipient,
        uint256 fee,
        uint256 changeCommitment
    ) external returns (uint256 changeLeafIndex) {
        if (!isKnownRoot(root)) revert UnknownRoot(root);
        if (nullifierSpent[nullifierHash]) revert NullifierAlreadySpent(nullifierHash);
        if (withdrawAmount > MAX_AMOUNT || fee > MAX_AMOUNT) revert InvalidAmount();
        if ((withdrawAmount != 0 && recipient == address(0)) || (fee != 0 && feeRecipient == address(0))) {
            revert ZeroAddress();
        }

        uint256[8] memory signals = [
            root,
            nullifierHash,
            uint256(uint160(token)),
            withdrawAmount,
            uint256(uint160(recipient)),
            uint256(uint160(feeRecipient)),
            fee,
            changeCommitment
        ];
        // The snarkjs verifier answers false (it does not revert) for a wrong proof and also when a precompile
        // runs out of gas: reverting here makes a false proof fail the transaction and gas estimation alike.
        if (!verifier.verifyProof(proof.a, proof.b, proof.c, signals)) revert InvalidProof();

        nullifierSpent[nullifierHash] = true;
        changeLeafIndex = _insert(changeCommitment);

        if (withdrawAmount != 0) IERC20(token).safeTransfer(recipient, withdrawAmount);
        if (fee != 0) IERC20(token).safeTransfer(feeRecipient, fee);
        emit Unshielded(
            token, recipient, withdrawAmount, feeRecipient, fee, nullifierHash, changeLeafIndex, changeCommitment
        );
    }

    /// @notice Whether `root` is the current root or one of the `ROOT_HISTORY_SIZE - 1` before it.
    function isKnownRoot(uint256 root) public view returns (bool) {
        uint256 sizeThen = _rootSize[root];
        return sizeThen != 0 && _tree.size - sizeThen < ROOT_HISTORY_SIZE;
    }

    /// @notice The current root (0 while the tree is empty).
    function currentRoot() external view returns (uint256) {
        return InternalLeanIMT._root(_tree);
    }

    /// @notice The number of leaves.
    function size() external view returns (uint256) {
        return _tree.size;
    }

    /// @notice The current depth of the tree.
    function depth() external view returns (uint256) {
        return _tree.depth;
    }

    /// @dev LeanIMT rejects 0, values outside the field and a leaf already in the tree.
    function _insert(uint256 leaf) internal returns (uint256 leafIndex) {
        leafIndex = _tree.size;
        if (leafIndex == MAX_LEAVES) revert TreeFull();
        uint256 newRoot = InternalLeanIMT._insert(_tree, leaf);
        _rootSize[newRoot] = leafIndex + 1;
        emit LeafInserted(leafIndex, leaf, newRoot);
    }
}
