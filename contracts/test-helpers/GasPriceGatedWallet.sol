// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice Test helper, never deployed by the devnet: an ERC-1271 payer that accepts its owner's signatures only
/// when tx.gasprice is zero, i.e. in a plain eth_call but never in a mined transaction. A facilitator that checks
/// with a gas-price-free eth_call and then sends pays for a revert.
contract GasPriceGatedWallet is IERC1271 {
    using SafeERC20 for IERC20;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function approve(IERC20 token, address spender, uint256 amount) external {
        require(msg.sender == owner, "not owner");
        token.forceApprove(spender, amount); // USDT-like tokens return no bool
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        if (tx.gasprice != 0 || err != ECDSA.RecoverError.NoError || recovered != owner) return 0xffffffff;
        return IERC1271.isValidSignature.selector;
    }
}
