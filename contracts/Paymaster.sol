// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {BasePaymaster} from "@account-abstraction/contracts/core/BasePaymaster.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {UserOperationLib} from "@account-abstraction/contracts/core/UserOperationLib.sol";
import {_packValidationData} from "@account-abstraction/contracts/core/Helpers.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @notice Verifying paymaster (EntryPoint v0.7), modeled on the eth-infinitism VerifyingPaymaster sample,
/// with a rotatable signer and an explicit owner (deployed through the CREATE2 deployer). Ownership moves in two
/// steps (Ownable2Step): the deposit and the stake stay with the old owner until the new one accepts.
/// paymasterAndData = paymaster(20) | pmVerificationGasLimit(16) | pmPostOpGasLimit(16)
///                    | abi.encode(uint48 validUntil, uint48 validAfter) | signature(65)
contract Paymaster is BasePaymaster, Ownable2Step {
    using UserOperationLib for PackedUserOperation;

    uint256 private constant VALID_TIMESTAMP_OFFSET = PAYMASTER_DATA_OFFSET;
    uint256 private constant SIGNATURE_OFFSET = VALID_TIMESTAMP_OFFSET + 64;
    uint256 private constant SIGNATURE_LENGTH = 65;

    address public verifyingSigner;

    event VerifyingSignerUpdated(address indexed previousSigner, address indexed newSigner);

    error InvalidPaymasterDataLength(uint256 length);
    error InvalidSigner();

    constructor(IEntryPoint entryPoint_, address signer, address owner) BasePaymaster(entryPoint_) {
        _setVerifyingSigner(signer);
        _transferOwnership(owner);
    }

    function setVerifyingSigner(address signer) external onlyOwner {
        _setVerifyingSigner(signer);
    }

    function transferOwnership(address newOwner) public override(Ownable, Ownable2Step) onlyOwner {
        Ownable2Step.transferOwnership(newOwner);
    }

    function _transferOwnership(address newOwner) internal override(Ownable, Ownable2Step) {
        Ownable2Step._transferOwnership(newOwner);
    }

    /// @notice Hash the off-chain signer signs (as an EIP-191 message). Covers every UserOp field except
    /// the paymaster data that carries the signature itself.
    function getHash(
        PackedUserOperation calldata userOp,
        uint48 validUntil,
        uint48 validAfter
    ) public view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    userOp.getSender(),
                    userOp.nonce,
                    keccak256(userOp.initCode),
                    keccak256(userOp.callData),
                    userOp.accountGasLimits,
                    uint256(bytes32(userOp.paymasterAndData[PAYMASTER_VALIDATION_GAS_OFFSET:PAYMASTER_DATA_OFFSET])),
                    userOp.preVerificationGas,
                    userOp.gasFees,
                    block.chainid,
                    address(this),
                    validUntil,
                    validAfter
                )
            );
    }

    function parsePaymasterAndData(
        bytes calldata paymasterAndData
    ) public pure returns (uint48 validUntil, uint48 validAfter, bytes calldata signature) {
        if (paymasterAndData.length != SIGNATURE_OFFSET + SIGNATURE_LENGTH) {
            revert InvalidPaymasterDataLength(paymasterAndData.length);
        }
        (validUntil, validAfter) = abi.decode(paymasterAndData[VALID_TIMESTAMP_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[SIGNATURE_OFFSET:];
    }

    /// @dev A bad signature returns SIG_VALIDATION_FAILED (packed with the window) instead of reverting,
    /// so simulation can tell a signature failure from a malformed request.
    function _validatePaymasterUserOp(
        PackedUserOperation calldata userOp,
        bytes32 /*userOpHash*/,
        uint256 /*maxCost*/
    ) internal view override returns (bytes memory context, uint256 validationData) {
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = parsePaymasterAndData(
            userOp.paymasterAndData
        );
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(getHash(userOp, validUntil, validAfter));
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        bool sigFailed = err != ECDSA.RecoverError.NoError || recovered != verifyingSigner;
        return ("", _packValidationData(sigFailed, validUntil, validAfter));
    }

    function _setVerifyingSigner(address signer) private {
        if (signer == address(0)) revert InvalidSigner();
        emit VerifyingSignerUpdated(verifyingSigner, signer);
        verifyingSigner = signer;
    }
}
