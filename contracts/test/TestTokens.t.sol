// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";
import {TestUSDC} from "../test-tokens/TestUSDC.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";
import {TestPermitToken} from "../test-tokens/TestPermitToken.sol";
import {TestFiatToken} from "../test-helpers/TestFiatToken.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

contract TestUSDCTest is Test {
    bytes32 internal constant TRANSFER_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );

    TestUSDC internal usdc;
    address internal payer;
    uint256 internal payerKey;
    address internal merchant = makeAddr("merchant");

    function setUp() public {
        vm.warp(1_700_000_000);
        usdc = new TestUSDC();
        (payer, payerKey) = makeAddrAndKey("payer");
        usdc.mint(payer, 100e6);
    }

    function _digest(uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce) internal view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(usdc)
            )
        );
        bytes32 structHash = keccak256(abi.encode(TRANSFER_TYPEHASH, payer, merchant, value, validAfter, validBefore, nonce));
        return MessageHashUtils.toTypedDataHash(domain, structHash);
    }

    function test_metadata() public view {
        assertEq(usdc.name(), "USD Coin");
        assertEq(usdc.symbol(), "USDC");
        assertEq(usdc.decimals(), 6);
        (, string memory name, string memory version, , , , ) = usdc.eip712Domain();
        assertEq(name, "USD Coin");
        assertEq(version, "2");
    }

    function test_transferWithAuthorizationVRS() public {
        bytes32 nonce = keccak256("n");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, _digest(1e6, 0, block.timestamp + 60, nonce));
        usdc.transferWithAuthorization(payer, merchant, 1e6, 0, block.timestamp + 60, nonce, v, r, s);
        assertEq(usdc.balanceOf(merchant), 1e6);
        assertTrue(usdc.authorizationState(payer, nonce));

        vm.expectRevert(abi.encodeWithSelector(ERC3009.ERC3009UsedAuthorization.selector, payer, nonce));
        usdc.transferWithAuthorization(payer, merchant, 1e6, 0, block.timestamp + 60, nonce, v, r, s);
    }

    function test_transferWithAuthorizationBytesSignature() public {
        bytes32 nonce = keccak256("b");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, _digest(2e6, 0, block.timestamp + 60, nonce));
        usdc.transferWithAuthorization(payer, merchant, 2e6, 0, block.timestamp + 60, nonce, abi.encodePacked(r, s, v));
        assertEq(usdc.balanceOf(merchant), 2e6);
    }

    function test_transferWithAuthorizationWrongSigner() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes32 nonce = keccak256("w");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(otherKey, _digest(1e6, 0, block.timestamp + 60, nonce));
        vm.expectRevert(ERC3009.ERC3009InvalidSignature.selector);
        usdc.transferWithAuthorization(payer, merchant, 1e6, 0, block.timestamp + 60, nonce, v, r, s);
    }
}

contract TestUSDTTest is Test {
    TestUSDT internal usdt;

    function setUp() public {
        usdt = new TestUSDT();
    }

    function test_metadata() public view {
        assertEq(usdt.name(), "Tether USD");
        assertEq(usdt.symbol(), "USDT");
        assertEq(usdt.decimals(), 18);
    }

    function test_methodsReturnNoData() public {
        address alice = makeAddr("alice");
        usdt.mint(address(this), 10e18);
        (bool ok, bytes memory ret) = address(usdt).call(abi.encodeCall(TestUSDT.transfer, (alice, 1e18)));
        assertTrue(ok);
        assertEq(ret.length, 0);
        (ok, ret) = address(usdt).call(abi.encodeCall(TestUSDT.approve, (alice, 1e18)));
        assertTrue(ok);
        assertEq(ret.length, 0);
        vm.prank(alice);
        (ok, ret) = address(usdt).call(abi.encodeCall(TestUSDT.transferFrom, (address(this), alice, 1e18)));
        assertTrue(ok);
        assertEq(ret.length, 0);
        assertEq(usdt.balanceOf(alice), 2e18);
        assertEq(usdt.allowance(address(this), alice), 0);
        assertEq(usdt.totalSupply(), 10e18);
    }

    function test_transferFromWithoutAllowanceReverts() public {
        address alice = makeAddr("alice");
        usdt.mint(address(this), 10e18);
        vm.prank(alice);
        vm.expectRevert("USDT: insufficient allowance");
        usdt.transferFrom(address(this), alice, 1);
    }
}

contract TestPermitTokenTest is Test {
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    TestPermitToken internal token;
    address internal owner;
    uint256 internal ownerKey;
    address internal spender = makeAddr("spender");

    function setUp() public {
        vm.warp(1_700_000_000);
        token = new TestPermitToken();
        (owner, ownerKey) = makeAddrAndKey("owner");
        token.mint(owner, 100e6);
    }

    function _sign(uint256 value, uint256 nonce, uint256 deadline) internal view returns (uint8, bytes32, bytes32) {
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonce, deadline));
        return vm.sign(ownerKey, MessageHashUtils.toTypedDataHash(token.DOMAIN_SEPARATOR(), structHash));
    }

    function test_metadata() public view {
        assertEq(token.name(), "Permit USD");
        assertEq(token.symbol(), "PUSD");
        assertEq(token.decimals(), 6);
        (, string memory name, string memory version, , , , ) = token.eip712Domain();
        assertEq(name, "Permit USD");
        assertEq(version, "1");
    }

    function test_permitGrantsAllowanceOnce() public {
        uint256 deadline = block.timestamp + 60;
        (uint8 v, bytes32 r, bytes32 s) = _sign(5e6, 0, deadline);
        token.permit(owner, spender, 5e6, deadline, v, r, s);
        assertEq(token.allowance(owner, spender), 5e6);
        assertEq(token.nonces(owner), 1);
        vm.expectRevert();
        token.permit(owner, spender, 5e6, deadline, v, r, s);
    }

    function test_expiredPermitReverts() public {
        uint256 deadline = block.timestamp - 1;
        (uint8 v, bytes32 r, bytes32 s) = _sign(5e6, 0, deadline);
        vm.expectRevert(abi.encodeWithSelector(ERC20Permit.ERC2612ExpiredSignature.selector, deadline));
        token.permit(owner, spender, 5e6, deadline, v, r, s);
    }

    function test_hasNoEip3009() public {
        (bool ok, ) = address(token).call(abi.encodeWithSignature("authorizationState(address,bytes32)", owner, bytes32(0)));
        assertFalse(ok);
    }
}

/// The rehearsal's Base USDC: EIP-3009 and EIP-2612 under the one domain ("USD Coin", "2").
contract TestFiatTokenTest is Test {
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    TestFiatToken internal token;
    address internal owner;
    uint256 internal ownerKey;
    address internal spender = makeAddr("spender");

    function setUp() public {
        vm.warp(1_700_000_000);
        token = new TestFiatToken();
        (owner, ownerKey) = makeAddrAndKey("owner");
    }

    function _sign(uint256 key, uint256 value, uint256 deadline) internal view returns (uint8, bytes32, bytes32) {
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, token.nonces(owner), deadline));
        return vm.sign(key, MessageHashUtils.toTypedDataHash(token.DOMAIN_SEPARATOR(), structHash));
    }

    function test_permitUnderUsdcDomainOnce() public {
        (, string memory name, string memory version, , , , ) = token.eip712Domain();
        assertEq(name, "USD Coin");
        assertEq(version, "2");
        uint256 deadline = block.timestamp + 60;
        (uint8 v, bytes32 r, bytes32 s) = _sign(ownerKey, 5e6, deadline);
        token.permit(owner, spender, 5e6, deadline, v, r, s);
        assertEq(token.allowance(owner, spender), 5e6);
        assertEq(token.nonces(owner), 1);
        vm.expectRevert();
        token.permit(owner, spender, 5e6, deadline, v, r, s);
    }

    function test_permitRefusesExpiredOrForeignSignatures() public {
        (, uint256 strangerKey) = makeAddrAndKey("stranger");
        uint256 deadline = block.timestamp + 60;
        (uint8 v, bytes32 r, bytes32 s) = _sign(strangerKey, 5e6, deadline);
        vm.expectRevert();
        token.permit(owner, spender, 5e6, deadline, v, r, s);
        (v, r, s) = _sign(ownerKey, 5e6, block.timestamp - 1);
        vm.expectRevert(abi.encodeWithSelector(TestFiatToken.PermitExpired.selector, block.timestamp - 1));
        token.permit(owner, spender, 5e6, block.timestamp - 1, v, r, s);
        assertEq(token.allowance(owner, spender), 0);
    }
}
