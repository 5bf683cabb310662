// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {TestUSDC} from "../test-tokens/TestUSDC.sol";

/// @notice The rehearsal's stand-in for Base's USDC (FiatToken v2.2), which has both EIP-3009 and EIP-2612 `permit`
/// under one EIP-712 domain ("USD Coin", "2"): TestUSDC plus a permit with sequential nonces, so that a config that
/// says `eip2612: true` for it, as `relay402 deploy` writes for Base's USDC, passes the start's checks.
contract TestFiatToken is TestUSDC, Nonces, IERC20Permit {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    error PermitExpired(uint256 deadline);
    error PermitInvalidSigner(address signer, address owner);

    function permit(
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (block.timestamp > deadline) revert PermitExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedDataV4(structHash), v, r, s);
        if (signer != owner) revert PermitInvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }
}
