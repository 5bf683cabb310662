// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Relayer} from "../../Relayer.sol";
import {TestUSDT} from "../../test-tokens/TestUSDT.sol";
import {TestUSDC} from "../../test-tokens/TestUSDC.sol";

abstract contract RelayerTestBase is Test {
    struct Auth {
        address token;
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    Relayer internal relayer;
    TestUSDT internal usdt;
    TestUSDC internal usdc;
    address internal relayerOwner = makeAddr("relayerOwner");

    function _deployRelayer() internal {
        vm.warp(1_700_000_000);
        relayer = new Relayer("relay402", "1", relayerOwner);
        usdt = new TestUSDT();
        usdc = new TestUSDC();
        vm.startPrank(relayerOwner);
        relayer.setTokenWhitelisted(address(usdt), true);
        relayer.setTokenWhitelisted(address(usdc), true);
        vm.stopPrank();
    }

    function _digest(Auth memory a) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                relayer.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(),
                a.token,
                a.from,
                a.to,
                a.value,
                a.validAfter,
                a.validBefore,
                a.nonce
            )
        );
        return MessageHashUtils.toTypedDataHash(_domainSeparator(), structHash);
    }

    function _cancelDigest(address authorizer, bytes32 nonce) internal view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(relayer.CANCEL_AUTHORIZATION_TYPEHASH(), authorizer, nonce));
        return MessageHashUtils.toTypedDataHash(_domainSeparator(), structHash);
    }

    /// @dev Rebuilt from EIP-5267 eip712Domain(), the way an off-chain client would.
    function _domainSeparator() internal view returns (bytes32) {
        (, string memory name, string memory version, uint256 chainId, address verifyingContract, , ) = relayer
            .eip712Domain();
        return
            keccak256(
                abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), chainId, verifyingContract)
            );
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _submit(Auth memory a, bytes memory signature) internal {
        relayer.transferWithAuthorization(
            a.token,
            a.from,
            a.to,
            a.value,
            a.validAfter,
            a.validBefore,
            a.nonce,
            signature
        );
    }

    function _check(Auth memory a, bytes memory signature) internal view returns (uint8 status) {
        (status, , ) = relayer.checkAuthorization(
            a.token,
            a.from,
            a.to,
            a.value,
            a.validAfter,
            a.validBefore,
            a.nonce,
            signature
        );
    }
}
