// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Relayer} from "../Relayer.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// @dev Drives the relayer with authorizations over a tiny nonce space so replays and cancels collide often.
contract RelayerHandler is Test {
    Relayer internal immutable relayer;
    TestUSDT internal immutable token;
    uint256[3] internal keys = [uint256(0xA11CE), 0xB0B, 0xCA401];

    mapping(address => mapping(bytes32 => uint256)) public consumptions; // uses + cancels per (payer, nonce)
    uint256 public maxConsumptions;
    uint256 public successfulTransfers;

    constructor(Relayer relayer_, TestUSDT token_) {
        relayer = relayer_;
        token = token_;
        for (uint256 i; i < keys.length; ++i) {
            address payer = vm.addr(keys[i]);
            token.mint(payer, 1e30);
            vm.prank(payer);
            token.approve(address(relayer), type(uint256).max);
        }
    }

    function transfer(uint256 payerSeed, uint8 nonceSeed, uint96 value, address to, bool forgeSigner) external {
        uint256 key = keys[payerSeed % keys.length];
        address from = vm.addr(key);
        if (to == address(0) || to == address(relayer)) to = address(1);
        bytes32 nonce = bytes32(uint256(nonceSeed % 4));
        uint256 signKey = forgeSigner ? keys[(payerSeed + 1) % keys.length] : key;
        bytes32 digest = _digest(from, to, value, nonce);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(signKey, digest);
        try relayer.transferWithAuthorization(address(token), from, to, value, 0, block.timestamp, nonce, abi.encodePacked(r, s, v)) {
            _consume(from, nonce);
            ++successfulTransfers;
        } catch {}
    }

    function cancel(uint256 payerSeed, uint8 nonceSeed) external {
        uint256 key = keys[payerSeed % keys.length];
        address from = vm.addr(key);
        bytes32 nonce = bytes32(uint256(nonceSeed % 4));
        bytes32 structHash = keccak256(abi.encode(relayer.CANCEL_AUTHORIZATION_TYPEHASH(), from, nonce));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, MessageHashUtils.toTypedDataHash(_domainSeparator(), structHash));
        try relayer.cancelAuthorization(from, nonce, abi.encodePacked(r, s, v)) {
            _consume(from, nonce);
        } catch {}
    }

    function payBatch(uint256 payerSeed, uint96 amount, address to) external {
        address payer = vm.addr(keys[payerSeed % keys.length]);
        if (to == address(0) || to == address(relayer)) to = address(1);
        address[] memory recipients = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        (recipients[0], amounts[0]) = (to, amount);
        vm.prank(payer);
        relayer.payBatch(address(token), recipients, amounts);
    }

    function _consume(address from, bytes32 nonce) internal {
        uint256 count = ++consumptions[from][nonce];
        if (count > maxConsumptions) maxConsumptions = count;
    }

    function _digest(address from, address to, uint256 value, bytes32 nonce) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(relayer.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), address(token), from, to, value, 0, block.timestamp, nonce)
        );
        return MessageHashUtils.toTypedDataHash(_domainSeparator(), structHash);
    }

    function _domainSeparator() internal view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256("relay402"),
                    keccak256("1"),
                    block.chainid,
                    address(relayer)
                )
            );
    }
}

contract RelayerInvariantTest is Test {
    Relayer internal relayer;
    TestUSDT internal token;
    RelayerHandler internal handler;

    function setUp() public {
        relayer = new Relayer("relay402", "1", address(this));
        token = new TestUSDT();
        relayer.setTokenWhitelisted(address(token), true);
        handler = new RelayerHandler(relayer, token);
        targetContract(address(handler));
    }

    function invariant_nonceNeverConsumedTwice() public view {
        assertLe(handler.maxConsumptions(), 1);
    }

    function invariant_relayerNeverHoldsTokens() public view {
        assertEq(token.balanceOf(address(relayer)), 0);
        assertEq(address(relayer).balance, 0);
    }

    function invariant_supplyConserved() public view {
        assertEq(token.totalSupply(), 3e30);
    }
}
