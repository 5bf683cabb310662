// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test, Vm} from "forge-std/Test.sol";
import {EntryPoint} from "@account-abstraction/contracts/core/EntryPoint.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {Execution, IERC7579Execution} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Account as SmartAccount} from "../../Account.sol";
import {WalletFactory} from "../../WalletFactory.sol";
import {Paymaster} from "../../Paymaster.sol";

/// @dev Real EntryPoint v0.7 at its canonical address, a factory, and UserOp building/signing helpers.
abstract contract AATestBase is Test {
    address internal constant ENTRYPOINT_V07 = 0x0000000071727De22E5E9d8BAf0edAc6f37da032;
    bytes32 internal constant MODE_BATCH = bytes32(uint256(0x01) << 248);

    IEntryPoint internal entryPoint;
    WalletFactory internal factory;
    address payable internal bundler;

    function setUp() public virtual {
        deployCodeTo("EntryPoint.sol:EntryPoint", ENTRYPOINT_V07);
        entryPoint = IEntryPoint(ENTRYPOINT_V07);
        factory = new WalletFactory();
        bundler = payable(makeAddr("bundler"));
    }

    function _batch(Execution[] memory calls) internal pure returns (bytes memory) {
        return abi.encodeCall(IERC7579Execution.execute, (MODE_BATCH, abi.encode(calls)));
    }

    function _call(address target, uint256 value, bytes memory data) internal pure returns (Execution[] memory calls) {
        calls = new Execution[](1);
        calls[0] = Execution(target, value, data);
    }

    function _userOp(address sender, bytes memory callData) internal view returns (PackedUserOperation memory op) {
        op.sender = sender;
        op.nonce = entryPoint.getNonce(sender, 0);
        op.callData = callData;
        op.accountGasLimits = bytes32((uint256(500_000) << 128) | 500_000);
        op.preVerificationGas = 50_000;
        op.gasFees = bytes32((uint256(1 gwei) << 128) | 2 gwei);
    }

    function _withInitCode(
        PackedUserOperation memory op,
        address owner,
        bytes32 salt
    ) internal view returns (PackedUserOperation memory) {
        op.initCode = abi.encodePacked(address(factory), abi.encodeCall(WalletFactory.createAccount, (owner, salt)));
        return op;
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _signUserOpRaw(PackedUserOperation memory op, uint256 key) internal view returns (PackedUserOperation memory) {
        op.signature = _sign(key, entryPoint.getUserOpHash(op));
        return op;
    }

    function _signUserOp191(PackedUserOperation memory op, uint256 key) internal view returns (PackedUserOperation memory) {
        op.signature = _sign(key, MessageHashUtils.toEthSignedMessageHash(entryPoint.getUserOpHash(op)));
        return op;
    }

    /// @dev Fills paymasterAndData and signs it; the account signature must be added afterwards
    /// (the paymaster hash does not cover op.signature, but the userOpHash covers paymasterAndData).
    function _sponsor(
        PackedUserOperation memory op,
        Paymaster paymaster,
        uint256 signerKey,
        uint48 validUntil,
        uint48 validAfter
    ) internal view returns (PackedUserOperation memory) {
        bytes memory gasLimits = abi.encodePacked(uint128(200_000), uint128(50_000));
        op.paymasterAndData = abi.encodePacked(address(paymaster), gasLimits, new bytes(64 + 65));
        bytes32 hash = paymaster.getHash(op, validUntil, validAfter);
        bytes memory sig = _sign(signerKey, MessageHashUtils.toEthSignedMessageHash(hash));
        op.paymasterAndData = abi.encodePacked(address(paymaster), gasLimits, abi.encode(validUntil, validAfter), sig);
        return op;
    }

    function _handle(PackedUserOperation memory op) internal {
        PackedUserOperation[] memory ops = new PackedUserOperation[](1);
        ops[0] = op;
        vm.prank(bundler, bundler);
        entryPoint.handleOps(ops, bundler);
    }

    /// @dev Returns (success, actualGasUsed) from the UserOperationEvent of the last handleOps recorded.
    function _userOpResult(Vm.Log[] memory logs) internal pure returns (bool success, uint256 actualGasUsed) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == IEntryPoint.UserOperationEvent.selector) {
                (, success, , actualGasUsed) = abi.decode(logs[i].data, (uint256, bool, uint256, uint256));
                return (success, actualGasUsed);
            }
        }
        revert("no UserOperationEvent");
    }

    function _failedOp(string memory reason) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(IEntryPoint.FailedOp.selector, 0, reason);
    }
}
