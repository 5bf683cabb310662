// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {RelayerPayerTestBase, BrokenToken} from "./utils/RelayerPayerTestBase.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// payBatch (a wallet pays from its own funds) and checkAuthorization (the service's verify read, which never reverts).
contract RelayerBatchAndChecksTest is RelayerPayerTestBase {
    // ---- payBatch ----

    function test_payBatchMovesSenderFundsOnly() public {
        address wallet = makeAddr("wallet");
        address feeRecipient = makeAddr("fee");
        usdt.mint(wallet, 20e18);
        vm.prank(wallet);
        usdt.approve(address(relayer), 11e18);

        address[] memory to = new address[](2);
        uint256[] memory amounts = new uint256[](2);
        (to[0], to[1], amounts[0], amounts[1]) = (merchant, feeRecipient, 10e18, 1e18);

        vm.expectEmit(address(relayer));
        emit Relayer.BatchPaid(wallet, address(usdt), 11e18);
        vm.prank(wallet);
        relayer.payBatch(address(usdt), to, amounts);

        assertEq(usdt.balanceOf(merchant), 10e18);
        assertEq(usdt.balanceOf(feeRecipient), 1e18);
        assertEq(usdt.balanceOf(wallet), 9e18);
        assertEq(usdt.balanceOf(payer), 1_000e18); // payer approved max but is untouched
    }

    function test_payBatchCannotPullAnotherApprover() public {
        address attacker = makeAddr("attacker");
        address[] memory to = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        (to[0], amounts[0]) = (attacker, 100e18);
        vm.prank(attacker);
        vm.expectRevert(); // attacker has no balance/allowance of its own; payer's approval is irrelevant
        relayer.payBatch(address(usdt), to, amounts);
        assertEq(usdt.balanceOf(payer), 1_000e18);
    }

    function test_payBatchLengthMismatch() public {
        vm.expectRevert(Relayer.LengthMismatch.selector);
        vm.prank(payer);
        relayer.payBatch(address(usdt), new address[](2), new uint256[](1));
    }

    function test_payBatchEmpty() public {
        vm.expectRevert(Relayer.EmptyBatch.selector);
        vm.prank(payer);
        relayer.payBatch(address(usdt), new address[](0), new uint256[](0));
    }

    function test_payBatchRequiresWhitelistAndUnpaused() public {
        address[] memory to = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        (to[0], amounts[0]) = (merchant, 1e18);
        TestUSDT other = new TestUSDT();
        vm.prank(payer);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, address(other)));
        relayer.payBatch(address(other), to, amounts);

        vm.prank(relayerOwner);
        relayer.pause();
        vm.prank(payer);
        vm.expectRevert(Pausable.EnforcedPause.selector);
        relayer.payBatch(address(usdt), to, amounts);
    }

    function testFuzz_payBatchTotals(uint96 a, uint96 b, uint96 c) public {
        address wallet = makeAddr("wallet");
        uint256 total = uint256(a) + b + c;
        usdc.mint(wallet, total);
        vm.prank(wallet);
        usdc.approve(address(relayer), total);
        address[] memory to = new address[](3);
        uint256[] memory amounts = new uint256[](3);
        (to[0], to[1], to[2]) = (merchant, makeAddr("fee"), merchant);
        (amounts[0], amounts[1], amounts[2]) = (a, b, c);
        vm.prank(wallet);
        relayer.payBatch(address(usdc), to, amounts);
        assertEq(usdc.balanceOf(merchant), uint256(a) + c);
        assertEq(usdc.balanceOf(wallet), 0);
        assertEq(usdc.balanceOf(address(relayer)), 0);
    }

    // ---- checkAuthorization ----

    /// @dev Starts with every check failing and fixes them one at a time, asserting the reported order.
    function test_checkAuthorizationReportsFailuresInOrder() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        TestUSDT token = new TestUSDT(); // not whitelisted, payer has no balance/allowance
        Auth memory a = Auth(address(token), payer, merchant, 10e18, block.timestamp + 10, block.timestamp - 10, keccak256("x"));
        relayer.cancelAuthorization(payer, a.nonce, _sign(payerKey, _cancelDigest(payer, a.nonce)));
        vm.prank(relayerOwner);
        relayer.pause();

        assertEq(_check(a, _sign(otherKey, _digest(a))), relayer.STATUS_BAD_SIGNATURE());
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_NONCE_USED());
        a.nonce = keccak256("fresh");
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_NOT_YET_VALID());
        a.validAfter = block.timestamp;
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_EXPIRED());
        a.validBefore = block.timestamp;
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_TOKEN_NOT_WHITELISTED());
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(token), true);
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_PAUSED());
        vm.prank(relayerOwner);
        relayer.unpause();
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_INSUFFICIENT_BALANCE());
        token.mint(payer, 10e18);
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_INSUFFICIENT_ALLOWANCE());
        vm.prank(payer);
        token.approve(address(relayer), 10e18);
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_OK());

        // and OK really means the transfer goes through
        _submit(a, _sign(payerKey, _digest(a)));
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_NONCE_USED());
    }

    function test_checkAuthorizationStatusCodes() public view {
        assertEq(relayer.STATUS_OK(), 0);
        assertEq(relayer.STATUS_BAD_SIGNATURE(), 1);
        assertEq(relayer.STATUS_NONCE_USED(), 2);
        assertEq(relayer.STATUS_NOT_YET_VALID(), 3);
        assertEq(relayer.STATUS_EXPIRED(), 4);
        assertEq(relayer.STATUS_TOKEN_NOT_WHITELISTED(), 5);
        assertEq(relayer.STATUS_PAUSED(), 6);
        assertEq(relayer.STATUS_INSUFFICIENT_BALANCE(), 7);
        assertEq(relayer.STATUS_INSUFFICIENT_ALLOWANCE(), 8);
    }

    function test_checkAuthorizationReturnsBalanceAndAllowance() public {
        Auth memory a = _usdtAuth();
        (uint8 status, uint256 balance, uint256 allowance) = relayer.checkAuthorization(
            a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, _sign(payerKey, _digest(a))
        );
        assertEq(status, 0);
        assertEq(balance, 1_000e18);
        assertEq(allowance, type(uint256).max);

        a.token = address(new TestUSDT());
        (status, balance, allowance) = relayer.checkAuthorization(
            a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, _sign(payerKey, _digest(a))
        );
        assertEq(status, relayer.STATUS_TOKEN_NOT_WHITELISTED());
        assertEq(balance, 0);
        assertEq(allowance, 0);
    }

    function test_checkAuthorizationSurvivesBrokenToken() public {
        BrokenToken broken = new BrokenToken();
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(broken), true);
        Auth memory a = _usdtAuth();
        a.token = address(broken);
        (uint8 status, uint256 balance, uint256 allowance) = relayer.checkAuthorization(
            a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, _sign(payerKey, _digest(a))
        );
        assertEq(status, relayer.STATUS_INSUFFICIENT_BALANCE());
        assertEq(balance, 0);
        assertEq(allowance, 0);

        a.token = makeAddr("noCode");
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(a.token, true);
        assertEq(_check(a, _sign(payerKey, _digest(a))), relayer.STATUS_INSUFFICIENT_BALANCE());
    }

    function testFuzz_checkAuthorizationRandomSignerNeverOk(uint256 key) public view {
        key = bound(key, 1, SECP256K1_N - 1);
        vm.assume(key != payerKey);
        Auth memory a = _usdtAuth();
        assertEq(_check(a, _sign(key, _digest(a))), relayer.STATUS_BAD_SIGNATURE());
    }

    function testFuzz_checkAuthorizationGarbageSignatureNeverReverts(bytes memory sig) public view {
        assertEq(_check(_usdtAuth(), sig), relayer.STATUS_BAD_SIGNATURE());
    }

    function testFuzz_transferRandomSignerReverts(uint256 key) public {
        key = bound(key, 1, SECP256K1_N - 1);
        vm.assume(key != payerKey);
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(key, _digest(a));
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
    }

    function testFuzz_transferWindow(uint32 validAfterOffset, uint32 validBeforeOffset, uint32 warpBy) public {
        Auth memory a = _usdtAuth();
        a.validAfter = block.timestamp + validAfterOffset;
        a.validBefore = block.timestamp + validBeforeOffset;
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.warp(block.timestamp + warpBy);
        if (block.timestamp < a.validAfter) vm.expectRevert(Relayer.AuthorizationNotYetValid.selector);
        else if (block.timestamp > a.validBefore) vm.expectRevert(Relayer.AuthorizationExpired.selector);
        _submit(a, sig);
    }
}
