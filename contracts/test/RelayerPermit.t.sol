// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {RelayerTestBase} from "./utils/RelayerTestBase.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";

/// @dev An EIP-2612 token (none of the devnet's test tokens has permit). Anyone can mint.
contract PermitToken is ERC20, ERC20Permit {
    constructor() ERC20("Permit Dollar", "PUSD") ERC20Permit("Permit Dollar") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

contract RelayerPermitTest is RelayerTestBase {
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    PermitToken internal token;
    address internal payer;
    uint256 internal payerKey;
    address internal to = makeAddr("to");
    address internal stranger = makeAddr("stranger");

    function setUp() public {
        _deployRelayer();
        token = new PermitToken();
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(token), true);
        (payer, payerKey) = makeAddrAndKey("payer");
        token.mint(payer, 1000e18);
    }

    function _auth(uint256 value, bytes32 nonce) internal view returns (Auth memory) {
        return Auth(address(token), payer, to, value, 0, block.timestamp + 300, nonce);
    }

    function _permit(uint256 key, uint256 value) internal view returns (Relayer.PermitSignature memory p) {
        address owner = vm.addr(key);
        bytes32 structHash = keccak256(
            abi.encode(PERMIT_TYPEHASH, owner, address(relayer), value, token.nonces(owner), block.timestamp + 300)
        );
        (p.v, p.r, p.s) = vm.sign(key, MessageHashUtils.toTypedDataHash(token.DOMAIN_SEPARATOR(), structHash));
        p.value = value;
        p.deadline = block.timestamp + 300;
    }

    function _submit(Auth memory a, bytes memory signature, Relayer.PermitSignature memory p) internal {
        relayer.transferWithAuthorizationWithPermit(
            a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature, p
        );
    }

    function test_permitAndTransferInOneTransaction() public {
        assertEq(token.allowance(payer, address(relayer)), 0, "never approved");
        Auth memory a = _auth(100e18, "permit");
        Relayer.PermitSignature memory p = _permit(payerKey, 100e18);
        vm.expectEmit(address(relayer));
        emit RelayerAuthorizations.AuthorizationUsed(payer, "permit", address(token), to, 100e18);
        vm.prank(stranger);
        _submit(a, _sign(payerKey, _digest(a)), p);
        assertEq(token.balanceOf(to), 100e18);
        assertEq(token.balanceOf(payer), 900e18);
        assertEq(token.allowance(payer, address(relayer)), 0);
        assertTrue(relayer.authorizationState(payer, "permit"));
    }

    /// @dev Someone submits the payer's permit to the token first: the permit call then reverts (its nonce is
    /// used), but the allowance it granted is there, so the payment goes through.
    function test_frontRunPermitDoesNotBreakIt() public {
        Auth memory a = _auth(100e18, "front-run");
        Relayer.PermitSignature memory p = _permit(payerKey, 100e18);
        vm.prank(stranger);
        token.permit(payer, address(relayer), p.value, p.deadline, p.v, p.r, p.s);
        _submit(a, _sign(payerKey, _digest(a)), p);
        assertEq(token.balanceOf(to), 100e18);
        assertEq(token.balanceOf(payer), 900e18);
    }

    function test_wrongPermitRefused() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        Auth memory a = _auth(100e18, "wrong");
        bytes memory sig = _sign(payerKey, _digest(a));
        Relayer.PermitSignature memory other = _permit(otherKey, 100e18);
        vm.expectRevert(Relayer.PermitFailed.selector);
        _submit(a, sig, other);

        // A permit whose deadline was tampered with does not recover to the payer either.
        Relayer.PermitSignature memory p = _permit(payerKey, 100e18);
        p.deadline += 1;
        vm.expectRevert(Relayer.PermitFailed.selector);
        _submit(a, sig, p);
        assertEq(token.balanceOf(payer), 1000e18);
        assertFalse(relayer.authorizationState(payer, "wrong"));
    }

    function test_permitBelowTheValueRefused() public {
        Auth memory a = _auth(100e18, "low");
        bytes memory sig = _sign(payerKey, _digest(a));
        Relayer.PermitSignature memory low = _permit(payerKey, 99e18);
        vm.expectRevert(abi.encodeWithSelector(Relayer.PermitValueTooLow.selector, 99e18, 100e18));
        _submit(a, sig, low);
        assertEq(token.balanceOf(payer), 1000e18);
    }

    /// @dev A permit larger than the payment moves only the signed value; the rest of the allowance needs
    /// another signed authorization, which a stranger cannot forge or replay.
    function test_nothingMovesBeyondTheAuthorization() public {
        Auth memory a = _auth(100e18, "bound");
        bytes memory sig = _sign(payerKey, _digest(a));
        Relayer.PermitSignature memory p = _permit(payerKey, 1000e18);

        Auth memory more = _auth(1000e18, "bound");
        vm.prank(stranger);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(more, sig, p);
        Auth memory elsewhere = _auth(100e18, "bound");
        elsewhere.to = stranger;
        vm.prank(stranger);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(elsewhere, sig, p);

        vm.prank(stranger);
        _submit(a, sig, p);
        assertEq(token.balanceOf(to), 100e18);
        assertEq(token.allowance(payer, address(relayer)), 900e18);

        vm.startPrank(stranger);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, bytes32("bound")));
        _submit(a, sig, p);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, bytes32("bound")));
        relayer.transferWithAuthorization(
            address(token), payer, stranger, 900e18, 0, block.timestamp + 300, "bound", sig
        );
        vm.stopPrank();
        assertEq(token.balanceOf(payer), 900e18);
        assertEq(token.balanceOf(stranger), 0);
    }

    /// @dev The usual checks still come first: a not whitelisted token, an expired authorization.
    function test_authorizationChecksApply() public {
        Auth memory a = _auth(100e18, "checks");
        bytes memory sig = _sign(payerKey, _digest(a));
        Relayer.PermitSignature memory p = _permit(payerKey, 100e18);
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(token), false);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, address(token)));
        _submit(a, sig, p);
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(token), true);
        vm.warp(a.validBefore + 1);
        vm.expectRevert(Relayer.AuthorizationExpired.selector);
        _submit(a, sig, p);
        assertEq(token.balanceOf(payer), 1000e18);
        assertEq(token.allowance(payer, address(relayer)), 0);
    }
}
