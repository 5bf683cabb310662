// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccountERC7579} from "@openzeppelin/contracts/account/extensions/draft-AccountERC7579.sol";
import {ERC4337Utils} from "@openzeppelin/contracts/account/utils/ERC4337Utils.sol";
import {AbstractSigner} from "@openzeppelin/contracts/utils/cryptography/signers/AbstractSigner.sol";
import {SignerECDSA} from "@openzeppelin/contracts/utils/cryptography/signers/SignerECDSA.sol";
import {ERC7739} from "@openzeppelin/contracts/utils/cryptography/signers/draft-ERC7739.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {Calldata} from "@openzeppelin/contracts/utils/Calldata.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IEntryPoint, PackedUserOperation} from "@openzeppelin/contracts/interfaces/IERC4337.sol";
import {MODULE_TYPE_VALIDATOR} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";

/// @notice ERC-7579 smart account for EntryPoint v0.7 with a single ECDSA owner, deployed as a clone.
/// The owner validates UserOps directly. ERC-1271 answers only ERC-7739 signatures (nested typed data or nested
/// personal sign, bound to this wallet's EIP-712 domain), so an owner's signature for one wallet is never valid for
/// another wallet of the same owner or as the owner's own. Installed validator modules are still honored.
contract Account is AccountERC7579, SignerECDSA, ERC7739, Initializable {
    error InvalidOwner();

    /// @dev EIP712 rebuilds the domain separator with address(this) whenever it runs in a clone.
    constructor() SignerECDSA(address(0)) EIP712("relay402 Account", "1") {
        _disableInitializers();
    }

    function initialize(address owner_) external initializer {
        if (owner_ == address(0)) revert InvalidOwner();
        _setSigner(owner_);
    }

    function owner() external view returns (address) {
        return signer();
    }

    function entryPoint() public view virtual override returns (IEntryPoint) {
        return ERC4337Utils.ENTRYPOINT_V07;
    }

    /// @dev Owner path (no validator module selected by the nonce key): the owner may sign the v0.7 userOpHash
    /// either raw or as an EIP-191 personal message, since wallets/libraries differ on which they produce.
    function _validateUserOp(
        PackedUserOperation calldata userOp,
        bytes32 userOpHash,
        bytes calldata signature
    ) internal virtual override returns (uint256) {
        if (isModuleInstalled(MODULE_TYPE_VALIDATOR, _extractUserOpValidator(userOp), Calldata.emptyBytes())) {
            return super._validateUserOp(userOp, userOpHash, signature);
        }
        bytes32 hash = _signableUserOpHash(userOp, userOpHash);
        bool valid = _rawSignatureValidation(hash, signature) ||
            _rawSignatureValidation(MessageHashUtils.toEthSignedMessageHash(hash), signature);
        return valid ? ERC4337Utils.SIG_VALIDATION_SUCCESS : ERC4337Utils.SIG_VALIDATION_FAILED;
    }

    /// @dev A validator module selected by the signature's first 20 bytes first, then the owner through ERC-7739 only:
    /// never the owner's raw signature over `hash`, which carries no binding to this wallet.
    function isValidSignature(
        bytes32 hash,
        bytes calldata signature
    ) public view virtual override(AccountERC7579, ERC7739) returns (bytes4) {
        bytes4 moduleResult = AccountERC7579.isValidSignature(hash, signature);
        if (moduleResult == IERC1271.isValidSignature.selector) return moduleResult;
        return ERC7739.isValidSignature(hash, signature);
    }

    function _rawSignatureValidation(
        bytes32 hash,
        bytes calldata signature
    ) internal view virtual override(AbstractSigner, AccountERC7579, SignerECDSA) returns (bool) {
        return SignerECDSA._rawSignatureValidation(hash, signature);
    }
}
