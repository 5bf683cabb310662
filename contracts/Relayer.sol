// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice EIP-3009-style authorized transfers for any whitelisted ERC-20 the payer approved to this contract,
/// plus a batch entry point for smart wallets paying from their own balance.
contract Relayer is EIP712, Ownable, Pausable {
    using SafeERC20 for IERC20;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
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

    mapping(address token => bool) private _whitelisted;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    /// @dev Carries what the authorization paid, so that whoever submitted it, a facilitator can tell its own
    /// authorization from a different one that reused the nonce.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce, address token, address to, uint256 value);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    event TokenWhitelistUpdated(address indexed token, bool allowed);
    event BatchPaid(address indexed payer, address indexed token, uint256 total);
    event Erc1271GasLimitUpdated(uint256 gasLimit);

    error TokenNotWhitelisted(address token);
    error AuthorizationNotYetValid();
    error AuthorizationExpired();
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    error InvalidSignature();
    error LengthMismatch();
    error EmptyBatch();

    constructor(string memory name, string memory version, address owner) EIP712(name, version) Ownable(owner) {
        emit Erc1271GasLimitUpdated(DEFAULT_ERC1271_GAS_LIMIT);
    }

    function transferWithAuthorization(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external whenNotPaused {
        _requireWhitelisted(token);
        if (block.timestamp < validAfter) revert AuthorizationNotYetValid();
        if (block.timestamp > validBefore) revert AuthorizationExpired();
        _requireUnusedNonce(from, nonce);
        bytes32 digest = _transferDigest(token, from, to, value, validAfter, validBefore, nonce);
        if (!_isValidSignature(from, digest, signature)) revert InvalidSignature();

        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce, token, to, value);
        IERC20(token).safeTransferFrom(from, to, value);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes calldata signature) external {
        _requireUnusedNonce(authorizer, nonce);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        if (!_isValidSignature(authorizer, digest, signature)) revert InvalidSignature();

        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @notice Smart-wallet payment: moves funds from msg.sender only (the fee is just another pair).
    function payBatch(
        address token,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external whenNotPaused {
        _requireWhitelisted(token);
        if (recipients.length != amounts.length) revert LengthMismatch();
        if (recipients.length == 0) revert EmptyBatch();

        uint256 total;
        for (uint256 i; i < recipients.length; ++i) {
            total += amounts[i];
            IERC20(token).safeTransferFrom(msg.sender, recipients[i], amounts[i]);
        }
        emit BatchPaid(msg.sender, token, total);
    }

    /// @notice Everything a facilitator's /verify needs in one eth_call; returns the first failing check.
    /// Never reverts on malformed signatures or misbehaving tokens.
    function checkAuthorization(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external view returns (uint8 status, uint256 balance, uint256 allowance) {
        bool whitelisted = _whitelisted[token];
        if (whitelisted) {
            balance = _readUint(token, abi.encodeCall(IERC20.balanceOf, (from)));
            allowance = _readUint(token, abi.encodeCall(IERC20.allowance, (from, address(this))));
        }

        bytes32 digest = _transferDigest(token, from, to, value, validAfter, validBefore, nonce);
        if (!_isValidSignature(from, digest, signature)) status = STATUS_BAD_SIGNATURE;
        else if (_authorizationStates[from][nonce]) status = STATUS_NONCE_USED;
        else if (block.timestamp < validAfter) status = STATUS_NOT_YET_VALID;
        else if (block.timestamp > validBefore) status = STATUS_EXPIRED;
        else if (!whitelisted) status = STATUS_TOKEN_NOT_WHITELISTED;
        else if (paused()) status = STATUS_PAUSED;
        else if (balance < value) status = STATUS_INSUFFICIENT_BALANCE;
        else if (allowance < value) status = STATUS_INSUFFICIENT_ALLOWANCE;
        else status = STATUS_OK;
    }

    function authorizationState(address from, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[from][nonce];
    }

    function isTokenWhitelisted(address token) external view returns (bool) {
        return _whitelisted[token];
    }

    function setTokenWhitelisted(address token, bool allowed) external onlyOwner {
        _whitelisted[token] = allowed;
        emit TokenWhitelistUpdated(token, allowed);
    }

    function setErc1271GasLimit(uint256 gasLimit) external onlyOwner {
        erc1271GasLimit = gasLimit;
        emit Erc1271GasLimitUpdated(gasLimit);
    }

    function pause() external onlyOwner {
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    function _transferDigest(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) private view returns (bytes32) {
        return
            _hashTypedDataV4(
                keccak256(
                    abi.encode(
                        TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
                        token,
                        from,
                        to,
                        value,
                        validAfter,
                        validBefore,
                        nonce
                    )
                )
            );
    }

    function _requireWhitelisted(address token) private view {
        if (!_whitelisted[token]) revert TokenNotWhitelisted(token);
    }

    function _requireUnusedNonce(address authorizer, bytes32 nonce) private view {
        if (_authorizationStates[authorizer][nonce]) revert AuthorizationAlreadyUsed(authorizer, nonce);
    }

    /// @dev ECDSA for an address without code; for a contract, ERC-1271 with at most `erc1271GasLimit` gas and
    /// only 32 bytes of return data copied (a large answer cannot make the caller pay for memory either).
    function _isValidSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (signer.code.length == 0) {
            (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
            return err == ECDSA.RecoverError.NoError && recovered == signer;
        }
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
    function _readUint(address token, bytes memory data) private view returns (uint256 result) {
        (bool ok, bytes memory ret) = token.staticcall(data);
        if (ok && ret.length >= 32) result = abi.decode(ret, (uint256));
    }
}
