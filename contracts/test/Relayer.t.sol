// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {RelayerPayerTestBase, MockContractWallet} from "./utils/RelayerPayerTestBase.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

contract RelayerTest is RelayerPayerTestBase {
    // ---- transferWithAuthorization ----

    function test_transferUSDT_noBoolToken() public {
        Auth memory a = _usdtAuth();
        vm.expectEmit(address(relayer));
        emit RelayerAuthorizations.AuthorizationUsed(payer, a.nonce, a.token, a.to, a.value);
        vm.prank(facilitator);
        _submit(a, _sign(payerKey, _digest(a)));
        assertEq(usdt.balanceOf(merchant), 10e18);
        assertEq(usdt.balanceOf(payer), 990e18);
        assertTrue(relayer.authorizationState(payer, a.nonce));
    }

    function test_transferUSDC() public {
        Auth memory a = Auth(address(usdc), payer, merchant, 5e6, 0, block.timestamp + 1, keccak256("usdc"));
        _submit(a, _sign(payerKey, _digest(a)));
        assertEq(usdc.balanceOf(merchant), 5e6);
        assertEq(usdc.balanceOf(address(relayer)), 0);
    }

    function test_replayReverts() public {
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        _submit(a, sig);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, a.nonce));
        _submit(a, sig);
    }

    function test_canceledNonceReverts() public {
        Auth memory a = _usdtAuth();
        vm.expectEmit(address(relayer));
        emit RelayerAuthorizations.AuthorizationCanceled(payer, a.nonce);
        relayer.cancelAuthorization(payer, a.nonce, _sign(payerKey, _cancelDigest(payer, a.nonce)));
        assertTrue(relayer.authorizationState(payer, a.nonce));
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, a.nonce));
        _submit(a, sig);
    }

    function test_cancelRequiresAuthorizerSignature() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes32 nonce = keccak256("n1");
        bytes memory sig = _sign(otherKey, _cancelDigest(payer, nonce));
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.cancelAuthorization(payer, nonce, sig);
    }

    function test_cancelTwiceReverts() public {
        bytes32 nonce = keccak256("n1");
        bytes memory sig = _sign(payerKey, _cancelDigest(payer, nonce));
        relayer.cancelAuthorization(payer, nonce, sig);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, nonce));
        relayer.cancelAuthorization(payer, nonce, sig);
    }

    function test_validAfterIsInclusive() public {
        Auth memory a = _usdtAuth();
        a.validAfter = block.timestamp;
        _submit(a, _sign(payerKey, _digest(a)));
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_validBeforeIsInclusive() public {
        Auth memory a = _usdtAuth();
        a.validBefore = block.timestamp;
        _submit(a, _sign(payerKey, _digest(a)));
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_oneSecondBeforeValidAfterReverts() public {
        Auth memory a = _usdtAuth();
        a.validAfter = block.timestamp + 1;
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(Relayer.AuthorizationNotYetValid.selector);
        _submit(a, sig);
        vm.warp(block.timestamp + 1);
        _submit(a, sig);
    }

    function test_oneSecondAfterValidBeforeReverts() public {
        Auth memory a = _usdtAuth();
        a.validBefore = block.timestamp;
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.warp(block.timestamp + 1);
        vm.expectRevert(Relayer.AuthorizationExpired.selector);
        _submit(a, sig);
    }

    function test_nonWhitelistedTokenReverts() public {
        TestUSDT other = new TestUSDT();
        Auth memory a = _usdtAuth();
        a.token = address(other);
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, address(other)));
        _submit(a, sig);
    }

    function test_delistedTokenReverts() public {
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(usdt), false);
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, address(usdt)));
        _submit(a, sig);
    }

    function test_pausedReverts() public {
        vm.prank(relayerOwner);
        relayer.pause();
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(Pausable.EnforcedPause.selector);
        _submit(a, sig);
        vm.prank(relayerOwner);
        relayer.unpause();
        _submit(a, sig);
    }

    function test_wrongSignerReverts() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(otherKey, _digest(a));
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
    }

    /// @dev The relayer hashes the seven authorization arguments straight from calldata, which is sound only because
    /// the ABI decoder refuses an address word with dirty upper bits before: with them set (on the token, the payer
    /// or the recipient), the call reverts, checkAuthorization too, instead of hashing a different word than the
    /// address it pays with; the same call with clean words pays.
    function test_dirtyAddressWordsAreRefusedBeforeHashing() public {
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        bytes memory clean = abi.encodeCall(
            Relayer.transferWithAuthorization,
            (a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig)
        );
        bytes memory check = abi.encodeCall(
            Relayer.checkAuthorization,
            (a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig)
        );
        for (uint256 word; word < 3; ++word) {
            bytes memory dirty = bytes.concat(clean);
            bytes memory dirtyCheck = bytes.concat(check);
            dirty[4 + word * 32] = 0x01; // the first of the twelve bytes above the address
            dirtyCheck[4 + word * 32] = 0x01;
            (bool ok, ) = address(relayer).call(dirty);
            assertFalse(ok);
            (ok, ) = address(relayer).staticcall(dirtyCheck);
            assertFalse(ok);
        }
        assertEq(usdt.balanceOf(merchant), 0);
        (bool paid, ) = address(relayer).call(clean);
        assertTrue(paid);
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_tamperedFieldsRevert() public {
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        a.to = facilitator;
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
    }

    function test_malleableHighSSignatureRejected() public {
        Auth memory a = _usdtAuth();
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, _digest(a));
        bytes memory highS = abi.encodePacked(r, bytes32(SECP256K1_N - uint256(s)), v == 27 ? uint8(28) : uint8(27));
        // same signer recovers from the high-s twin, but it must not be accepted
        assertEq(ecrecover(_digest(a), v == 27 ? 28 : 27, r, bytes32(SECP256K1_N - uint256(s))), payer);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, highS);
        assertEq(_check(a, highS), relayer.STATUS_BAD_SIGNATURE());
    }

    function test_erc1271PayerAccepted() public {
        MockContractWallet wallet = new MockContractWallet(payer, false);
        usdt.mint(address(wallet), 100e18);
        wallet.approve(usdt, address(relayer), 100e18);
        Auth memory a = _usdtAuth();
        a.from = address(wallet);
        bytes memory sig = _sign(payerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_OK());
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);
        assertTrue(relayer.authorizationState(address(wallet), a.nonce));
    }

    function test_erc1271RejectingPayerRefused() public {
        MockContractWallet wallet = new MockContractWallet(payer, true);
        usdt.mint(address(wallet), 100e18);
        wallet.approve(usdt, address(relayer), 100e18);
        Auth memory a = _usdtAuth();
        a.from = address(wallet);
        bytes memory sig = _sign(payerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_BAD_SIGNATURE());
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
    }

    /// @dev ECDSA is tried before the payer's code: the key of the payer address itself signs even with code at
    /// that address (an EIP-7702 account, whose key controls it whatever the code says), and only a signature by
    /// that key skips the code: any other goes to ERC-1271, here refused.
    function test_keyOfThePayerAddressSignsEvenWithCodeThere() public {
        vm.etch(payer, address(new MockContractWallet(payer, true)).code);
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_OK());
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);

        (, uint256 otherKey) = makeAddrAndKey("other");
        a.nonce = keccak256("n2");
        sig = _sign(otherKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_BAD_SIGNATURE());
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_insufficientAllowanceReverts() public {
        vm.prank(payer);
        usdt.approve(address(relayer), 1e18);
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert();
        _submit(a, sig);
        assertFalse(relayer.authorizationState(payer, a.nonce)); // reverted as a whole, nonce still usable
    }

    // ---- admin ----

    function test_onlyOwnerManagesWhitelistAndPause() public {
        address stranger = makeAddr("stranger");
        bytes memory unauthorized = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger);
        vm.startPrank(stranger);
        vm.expectRevert(unauthorized);
        relayer.setTokenWhitelisted(address(usdt), false);
        vm.expectRevert(unauthorized);
        relayer.pause();
        vm.expectRevert(unauthorized);
        relayer.unpause();
        vm.stopPrank();
        assertEq(relayer.owner(), relayerOwner);
    }

    /// @dev Two steps: a mistyped new owner never gets control; the old owner keeps it until the new one accepts.
    function test_ownershipMovesInTwoSteps() public {
        address mistyped = makeAddr("mistyped");
        vm.prank(relayerOwner);
        relayer.transferOwnership(mistyped);
        assertEq(relayer.owner(), relayerOwner, "still the old owner");
        assertEq(relayer.pendingOwner(), mistyped);

        bytes memory notOwner = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, mistyped);
        vm.startPrank(mistyped);
        vm.expectRevert(notOwner);
        relayer.pause();
        vm.expectRevert(notOwner);
        relayer.setFeeRecipient(mistyped);
        vm.stopPrank();

        // The old owner still rules, and names the right one; the mistyped address can no longer accept.
        address intended = makeAddr("intended");
        vm.startPrank(relayerOwner);
        relayer.setTokenWhitelisted(address(usdt), true);
        relayer.transferOwnership(intended);
        vm.stopPrank();
        vm.prank(mistyped);
        vm.expectRevert(notOwner);
        relayer.acceptOwnership();

        vm.prank(intended);
        relayer.acceptOwnership();
        assertEq(relayer.owner(), intended);
        vm.prank(relayerOwner);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, relayerOwner));
        relayer.pause();
        vm.prank(intended);
        relayer.pause();
        assertTrue(relayer.paused());
    }

    function test_whitelistEvent() public {
        address token = makeAddr("token");
        vm.expectEmit(address(relayer));
        emit RelayerAuthorizations.TokenWhitelistUpdated(token, true);
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(token, true);
        assertTrue(relayer.isTokenWhitelisted(token));
    }

    function test_eip712Domain() public view {
        (bytes1 fields, string memory name, string memory version, uint256 chainId, address verifying, , ) = relayer
            .eip712Domain();
        assertEq(fields, hex"0f");
        assertEq(name, "relay402");
        assertEq(version, "1");
        assertEq(chainId, block.chainid);
        assertEq(verifying, address(relayer));
    }
}
