// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice The devnet's second test token (a plain 18-decimal ERC-20 returning bool), the other side of the
/// DEX pools next to USDT/USDC and the wrapped native token. Anyone can mint.
contract TestDAI is ERC20 {
    constructor() ERC20("Dai Stablecoin", "DAI") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
