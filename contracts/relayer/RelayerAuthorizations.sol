// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @notice What every entry point of the Relayer stands on: the token whitelist and pause (one storage word per
/// token), the authorization nonces shared by payments and swaps, and signature checks for EOAs and contract
/// payers. The Relayer (contracts/Relayer.sol) adds the payments and swaps; its storage layout starts with this
/// contract's, in the order it had when both were one file.
abstract contract RelayerAuthorizations is EIP712, Ownable2Step, Pausable, ReentrancyGuardTransient {
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    uint8 public constant STATUS_OK = 0;
    uint8 public constant STATUS_BAD_SIGNATURE = 1;
    uint8 public constant STATUS_NONCE_USED = 2;
    uint8 public constant STATUS_NOT_YET_VALID = 3;
    uint8 public constant STATUS_EXPIRED = 4;
    uint8 public constant STATUS_TOKEN_NOT_WHITELISTED = 5;
    uint8 public constant STATUS_PAUSED = 6;
    uint8 public constant STATUS_INSUFFICIENT_BALANCE = 7;
    uint8 public constant STATUS_INSUFFICIENT_ALLOWANCE = 8;

    /// @notice Gas given to a contract payer's ERC-1271 isValidSignature: the payer's code runs on the
    /// submitter's gas, so without a cap any wallet could make a facilitator pay for arbitrary computation.
    uint256 public erc1271GasLimit = DEFAULT_ERC1271_GAS_LIMIT;
    uint256 public constant DEFAULT_ERC1271_GAS_LIMIT = 100_000;

    /// @dev Per token, one word that answers both checks a payment needs, so it costs one storage read:
    /// TOKEN_WHITELISTED, TOKEN_PAUSED (a copy of `paused()`, written to every listed token by pause and unpause)
    /// and TOKEN_LISTED (the token is in `_tokens`, once).
    mapping(address token => uint256 flags) internal _tokenFlags;
    /// @dev Every token ever whitelisted (delisted ones stay: pause must reach a token whitelisted again later).
    address[] private _tokens;
    uint256 internal constant TOKEN_WHITELISTED = 1;
    uint256 internal constant TOKEN_PAUSED = 2;
    uint256 private constant TOKEN_LISTED = 4;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) internal _authorizationStates;
    /// @dev Carries what the authorization paid, so that whoever submitted it, a facilitator can tell its own
    /// authorization from a different one that reused the nonce.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce, address token, address to, uint256 value);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    event TokenWhitelistUpdated(address indexed token, bool allowed);
    event Erc1271GasLimitUpdated(uint256 gasLimit);

    error TokenNotWhitelisted(address token);
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    error InvalidSignature();

    constructor(string memory name, string memory version, address owner) EIP712(name, version) Ownable(owner) {
        emit Erc1271GasLimitUpdated(DEFAULT_ERC1271_GAS_LIMIT);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes calldata signature) external {
        _useNonce(authorizer, nonce);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        if (!_isValidSignature(authorizer, digest, signature)) revert InvalidSignature();

        emit AuthorizationCanceled(authorizer, nonce);
    }

    function authorizationState(address from, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[from][nonce];
    }

    function isTokenWhitelisted(address token) external view returns (bool) {
        return _tokenFlags[token] & TOKEN_WHITELISTED != 0;
    }

    function setTokenWhitelisted(address token, bool allowed) external onlyOwner {
        if (_tokenFlags[token] & TOKEN_LISTED == 0) _tokens.push(token);
        _tokenFlags[token] =
            TOKEN_LISTED |
            (allowed ? TOKEN_WHITELISTED : 0) |
            (paused() ? TOKEN_PAUSED : 0);
        emit TokenWhitelistUpdated(token, allowed);
    }

    function setErc1271GasLimit(uint256 gasLimit) external onlyOwner {
        erc1271GasLimit = gasLimit;
        emit Erc1271GasLimitUpdated(gasLimit);
    }

    /// @notice Stops every payment and swap. Costs the owner one write per token ever whitelisted: the flag is
    /// copied into each token's word so that a payment reads pause and whitelist in one storage read.
    function pause() external onlyOwner {
        _pause();
        _setTokensPaused(TOKEN_PAUSED);
    }

    function unpause() external onlyOwner {
        _unpause();
        _setTokensPaused(0);
    }

    function _setTokensPaused(uint256 pausedFlag) internal {
        uint256 count = _tokens.length;
        for (uint256 i; i < count; ++i) {
            address token = _tokens[i];
            _tokenFlags[token] = (_tokenFlags[token] & ~TOKEN_PAUSED) | pausedFlag;
        }
    }

    /// @dev The pause and whitelist checks in one storage read. A refusal names the pause first, as the
    /// `whenNotPaused` modifier did before the whitelist check.
    function _requireOpen(address token) internal view {
        if (_tokenFlags[token] & (TOKEN_WHITELISTED | TOKEN_PAUSED) != TOKEN_WHITELISTED) {
            _requireNotPaused();
            revert TokenNotWhitelisted(token);
        }
    }

    /// @dev Marks the nonce used, or reverts if it already was: one slot computation for the read and the write.
    /// It happens before the signature check, whose failure reverts it with everything else; a contract payer's
    /// ERC-1271 code, called after it, already sees the nonce used (checks, effects, then interactions).
    function _useNonce(address authorizer, bytes32 nonce) internal {
        bool used;
        assembly ("memory-safe") {
            // _authorizationStates[authorizer][nonce]: the slot computed once for the read and the write
            mstore(0x00, authorizer)
            mstore(0x20, _authorizationStates.slot)
            mstore(0x20, keccak256(0x00, 0x40))
            mstore(0x00, nonce)
            let slot := keccak256(0x00, 0x40)
            used := sload(slot)
            if iszero(used) {
                sstore(slot, 1) // `true` as Solidity stores a bool
            }
        }
        if (used) revert AuthorizationAlreadyUsed(authorizer, nonce);
    }

    /// @dev ECDSA first: a 65-byte signature that recovers to `signer` is valid, without reading the signer's code
    /// (a cold account access, 2,600 gas, on every payment). Only the internal key of `signer` itself recovers to it:
    /// an EOA's, or an EIP-7702 account's own key, which controls that account whatever its code says; a contract's
    /// address has no key. Otherwise, for a contract, ERC-1271 with at most `erc1271GasLimit` gas and only 32 bytes
    /// of return data copied (a large answer cannot make the caller pay for memory either).
    function _isValidSignature(address signer, bytes32 digest, bytes calldata signature) internal view returns (bool) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == signer) return true;
        if (signer.code.length == 0) return false;
        bytes memory data = abi.encodeCall(IERC1271.isValidSignature, (digest, signature));
        uint256 gasLimit = erc1271GasLimit;
        bytes4 magic = IERC1271.isValidSignature.selector;
        bool valid;
        assembly ("memory-safe") {
            mstore(0x00, 0)
            let ok := staticcall(gasLimit, signer, add(data, 0x20), mload(data), 0x00, 0x20)
            valid := and(ok, and(gt(returndatasize(), 0x1f), eq(mload(0x00), magic)))
        }
        return valid;
    }

    /// @dev A failing call, short return data or missing code reads as 0.
    function _readUint(address token, bytes memory data) internal view returns (uint256 result) {
        (bool ok, bytes memory ret) = token.staticcall(data);
        if (ok && ret.length >= 32) result = abi.decode(ret, (uint256));
    }
}
