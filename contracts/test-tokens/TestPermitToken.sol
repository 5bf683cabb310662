// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @notice The devnet's token with EIP-2612 `permit` and no EIP-3009 (many stablecoins outside Circle's are built
/// so): a payer holding only it can approve by signature, which x402's eip2612GasSponsoring and the relayer's
/// transferWithAuthorizationWithPermit submit for it. 6 decimals, EIP-712 domain ("Permit USD", "1"). Anyone can mint.
contract TestPermitToken is ERC20, ERC20Permit {
    constructor() ERC20("Permit USD", "PUSD") ERC20Permit("Permit USD") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
