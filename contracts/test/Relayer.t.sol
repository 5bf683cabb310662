// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {RelayerTestBase} from "./utils/RelayerTestBase.sol";
import {Relayer} from "../Relayer.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// @dev ERC-1271 payer that accepts signatures of its owner key (or nothing, when `rejectAll`).
contract MockContractWallet is IERC1271 {
    address public immutable owner;
    bool public immutable rejectAll;

    constructor(address owner_, bool rejectAll_) {
        owner = owner_;
        rejectAll = rejectAll_;
    }

    function approve(TestUSDT token, address spender, uint256 amount) external {
        token.approve(spender, amount);
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        if (rejectAll || err != ECDSA.RecoverError.NoError || recovered != owner) return 0xffffffff;
        return IERC1271.isValidSignature.selector;
    }
}

/// @dev Token whose views revert or return garbage, to prove checkAuthorization never reverts.
contract BrokenToken {
    function balanceOf(address) external pure returns (uint256) {
        assembly {
            return(0, 1) // short return data
        }
    }

    function allowance(address, address) external pure returns (uint256) {
        revert("broken");
    }
}

contract RelayerTest is RelayerTestBase {
    uint256 internal constant SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;

    address internal payer;
    uint256 internal payerKey;
    address internal merchant = makeAddr("merchant");
    address internal facilitator = makeAddr("facilitator");

    function setUp() public {
        _deployRelayer();
        (payer, payerKey) = makeAddrAndKey("payer");
        usdt.mint(payer, 1_000e18);
        usdc.mint(payer, 1_000e6);
        vm.startPrank(payer);
        usdt.approve(address(relayer), type(uint256).max);
        usdc.approve(address(relayer), type(uint256).max);
        vm.stopPrank();
    }

    function _usdtAuth() internal view returns (Auth memory) {
        return Auth(address(usdt), payer, merchant, 10e18, block.timestamp - 60, block.timestamp + 60, keccak256("n1"));
    }

    // ---- transferWithAuthorization ----

    function test_transferUSDT_noBoolToken() public {
        Auth memory a = _usdtAuth();
        vm.expectEmit(address(relayer));
        emit Relayer.AuthorizationUsed(payer, a.nonce, a.token, a.to, a.value);
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, a.nonce));
        _submit(a, sig);
    }

    function test_canceledNonceReverts() public {
        Auth memory a = _usdtAuth();
        vm.expectEmit(address(relayer));
        emit Relayer.AuthorizationCanceled(payer, a.nonce);
        relayer.cancelAuthorization(payer, a.nonce, _sign(payerKey, _cancelDigest(payer, a.nonce)));
        assertTrue(relayer.authorizationState(payer, a.nonce));
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, a.nonce));
        _submit(a, sig);
    }

    function test_cancelRequiresAuthorizerSignature() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes32 nonce = keccak256("n1");
        bytes memory sig = _sign(otherKey, _cancelDigest(payer, nonce));
        vm.expectRevert(Relayer.InvalidSignature.selector);
        relayer.cancelAuthorization(payer, nonce, sig);
    }

    function test_cancelTwiceReverts() public {
        bytes32 nonce = keccak256("n1");
        bytes memory sig = _sign(payerKey, _cancelDigest(payer, nonce));
        relayer.cancelAuthorization(payer, nonce, sig);
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, nonce));
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.TokenNotWhitelisted.selector, address(other)));
        _submit(a, sig);
    }

    function test_delistedTokenReverts() public {
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(usdt), false);
        Auth memory a = _usdtAuth();
        bytes memory sig = _sign(payerKey, _digest(a));
        vm.expectRevert(abi.encodeWithSelector(Relayer.TokenNotWhitelisted.selector, address(usdt)));
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
        _submit(a, sig);
    }

    function test_malleableHighSSignatureRejected() public {
        Auth memory a = _usdtAuth();
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, _digest(a));
        bytes memory highS = abi.encodePacked(r, bytes32(SECP256K1_N - uint256(s)), v == 27 ? uint8(28) : uint8(27));
        // same signer recovers from the high-s twin, but it must not be accepted
        assertEq(ecrecover(_digest(a), v == 27 ? 28 : 27, r, bytes32(SECP256K1_N - uint256(s))), payer);
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        emit Relayer.TokenWhitelistUpdated(token, true);
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.TokenNotWhitelisted.selector, address(other)));
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
