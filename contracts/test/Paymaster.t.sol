// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "forge-std/Test.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {IEntryPoint} from "@account-abstraction/contracts/interfaces/IEntryPoint.sol";
import {AATestBase} from "./utils/AATestBase.sol";
import {Paymaster} from "../Paymaster.sol";

contract Counter {
    uint256 public count;

    function bump() external {
        ++count;
    }
}

contract PaymasterTest is AATestBase {
    Paymaster internal paymaster;
    address internal pmOwner = makeAddr("pmOwner");
    address internal signer;
    uint256 internal signerKey;
    address internal walletOwner;
    uint256 internal walletOwnerKey;
    address internal wallet;
    Counter internal counter;

    function setUp() public override {
        super.setUp();
        vm.warp(1_700_000_000);
        (signer, signerKey) = makeAddrAndKey("pmSigner");
        (walletOwner, walletOwnerKey) = makeAddrAndKey("walletOwner");
        paymaster = new Paymaster(entryPoint, signer, pmOwner);
        vm.deal(pmOwner, 10 ether);
        vm.prank(pmOwner);
        paymaster.deposit{value: 1 ether}();
        wallet = factory.getAddress(walletOwner, bytes32(0));
        counter = new Counter();
    }

    /// @dev A counterfactual wallet (deployed by initCode) with no native balance calls counter.bump().
    function _op(uint48 validUntil, uint48 validAfter, uint256 pmKey) internal view returns (PackedUserOperation memory op) {
        op = _userOp(wallet, _batch(_call(address(counter), 0, abi.encodeCall(Counter.bump, ()))));
        op = _withInitCode(op, walletOwner, bytes32(0));
        op = _sponsor(op, paymaster, pmKey, validUntil, validAfter);
        op = _signUserOpRaw(op, walletOwnerKey);
    }

    function test_constructorConfig() public view {
        assertEq(paymaster.owner(), pmOwner);
        assertEq(paymaster.verifyingSigner(), signer);
        assertEq(address(paymaster.entryPoint()), ENTRYPOINT_V07);
        assertEq(paymaster.getDeposit(), 1 ether);
    }

    function test_sponsoredUserOp() public {
        uint256 depositBefore = paymaster.getDeposit();
        vm.recordLogs();
        _handle(_op(uint48(block.timestamp + 300), 0, signerKey));
        (bool success, ) = _userOpResult(vm.getRecordedLogs());
        assertTrue(success);
        assertEq(counter.count(), 1);
        assertEq(wallet.balance, 0);
        assertLt(paymaster.getDeposit(), depositBefore);
        assertEq(depositBefore - paymaster.getDeposit(), bundler.balance);
    }

    function test_badSignatureRejected() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        PackedUserOperation memory op = _op(0, 0, otherKey);
        vm.expectRevert(_failedOp("AA34 signature error"));
        _handle(op);
    }

    function test_tamperedCallDataRejected() public {
        PackedUserOperation memory op = _op(0, 0, signerKey);
        op.callData = _batch(_call(address(counter), 1, abi.encodeCall(Counter.bump, ())));
        op = _signUserOpRaw(op, walletOwnerKey);
        vm.expectRevert(_failedOp("AA34 signature error"));
        _handle(op);
    }

    function test_expiredRejected() public {
        PackedUserOperation memory op = _op(uint48(block.timestamp + 10), 0, signerKey);
        vm.warp(block.timestamp + 11);
        vm.expectRevert(_failedOp("AA32 paymaster expired or not due"));
        _handle(op);
    }

    function test_notYetValidRejected() public {
        PackedUserOperation memory op = _op(0, uint48(block.timestamp + 60), signerKey);
        vm.expectRevert(_failedOp("AA32 paymaster expired or not due"));
        _handle(op);
    }

    function test_malformedPaymasterDataReverts() public {
        PackedUserOperation memory op = _op(0, 0, signerKey);
        bytes memory pmData = op.paymasterAndData;
        assembly {
            mstore(pmData, sub(mload(pmData), 1)) // drop the last signature byte
        }
        op = _signUserOpRaw(op, walletOwnerKey);
        vm.expectRevert(
            abi.encodeWithSelector(
                IEntryPoint.FailedOpWithRevert.selector,
                0,
                "AA33 reverted",
                abi.encodeWithSelector(Paymaster.InvalidPaymasterDataLength.selector, 52 + 64 + 64)
            )
        );
        _handle(op);
    }

    function test_validatePaymasterUserOpReturnsPackedFailure() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        PackedUserOperation memory op = _op(1234, 5, otherKey);
        vm.prank(ENTRYPOINT_V07);
        (, uint256 validationData) = paymaster.validatePaymasterUserOp(op, bytes32(0), 0);
        assertEq(validationData, 1 | (uint256(1234) << 160) | (uint256(5) << 208));
        op = _op(1234, 5, signerKey);
        vm.prank(ENTRYPOINT_V07);
        (, validationData) = paymaster.validatePaymasterUserOp(op, bytes32(0), 0);
        assertEq(validationData, (uint256(1234) << 160) | (uint256(5) << 208));
    }

    function test_onlyEntryPointValidates() public {
        PackedUserOperation memory op = _op(0, 0, signerKey);
        vm.expectRevert("Sender not EntryPoint");
        paymaster.validatePaymasterUserOp(op, bytes32(0), 0);
    }

    function test_signerRotation() public {
        (address newSigner, uint256 newKey) = makeAddrAndKey("newSigner");
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        paymaster.setVerifyingSigner(newSigner);

        vm.expectEmit(address(paymaster));
        emit Paymaster.VerifyingSignerUpdated(signer, newSigner);
        vm.prank(pmOwner);
        paymaster.setVerifyingSigner(newSigner);
        assertEq(paymaster.verifyingSigner(), newSigner);

        PackedUserOperation memory stale = _op(0, 0, signerKey);
        vm.expectRevert(_failedOp("AA34 signature error"));
        _handle(stale);

        _handle(_op(0, 0, newKey));
        assertEq(counter.count(), 1);
    }

    function test_zeroSignerRejected() public {
        vm.prank(pmOwner);
        vm.expectRevert(Paymaster.InvalidSigner.selector);
        paymaster.setVerifyingSigner(address(0));
    }

    function test_ownerDepositAndWithdraw() public {
        vm.prank(pmOwner);
        paymaster.deposit{value: 2 ether}();
        assertEq(paymaster.getDeposit(), 3 ether);

        address payable sink = payable(makeAddr("sink"));
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        paymaster.withdrawTo(sink, 1 ether);

        vm.prank(pmOwner);
        paymaster.withdrawTo(sink, 1 ether);
        assertEq(sink.balance, 1 ether);
        assertEq(paymaster.getDeposit(), 2 ether);
    }

    function test_ownerStake() public {
        vm.prank(pmOwner);
        paymaster.addStake{value: 1 ether}(1 days);
        assertEq(entryPoint.getDepositInfo(address(paymaster)).stake, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        paymaster.unlockStake();
    }

    /// @dev Two steps: a mistyped new owner never controls the deposit; the old owner keeps it until accepted.
    function test_ownershipMovesInTwoSteps() public {
        address mistyped = makeAddr("mistyped");
        address payable sink = payable(makeAddr("sink"));
        vm.prank(pmOwner);
        paymaster.transferOwnership(mistyped);
        assertEq(paymaster.owner(), pmOwner, "still the old owner");
        assertEq(paymaster.pendingOwner(), mistyped);

        // Only the pending owner may accept; until then it has no power over the deposit.
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        paymaster.acceptOwnership();
        vm.prank(mistyped);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, mistyped));
        paymaster.withdrawTo(sink, 1 ether);

        // The old owner still withdraws, and corrects the mistake.
        address intended = makeAddr("intended");
        vm.startPrank(pmOwner);
        paymaster.withdrawTo(sink, 0.5 ether);
        paymaster.transferOwnership(intended);
        vm.stopPrank();
        vm.prank(mistyped);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, mistyped));
        paymaster.acceptOwnership();

        vm.prank(intended);
        paymaster.acceptOwnership();
        assertEq(paymaster.owner(), intended);
        assertEq(paymaster.pendingOwner(), address(0));
        vm.prank(pmOwner);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, pmOwner));
        paymaster.withdrawTo(sink, 0.5 ether);
        vm.prank(intended);
        paymaster.withdrawTo(sink, 0.5 ether);
        assertEq(sink.balance, 1 ether);
    }

    function testFuzz_randomSignerNeverSponsored(uint256 key) public {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        vm.assume(key != signerKey);
        PackedUserOperation memory op = _op(0, 0, key);
        vm.expectRevert(_failedOp("AA34 signature error"));
        _handle(op);
    }
}
