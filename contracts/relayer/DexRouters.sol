// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @dev Uniswap V2 Router02 (and forks such as PancakeSwap V2): the one function the relayer calls.
interface IV2Router {
    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts);
}

/// @dev SwapRouter02's IV3SwapRouter (also PancakeSwap's SmartRouter): exactInput without a deadline field.
interface IV3Router {
    struct ExactInputParams {
        bytes path;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
    }

    function exactInput(ExactInputParams calldata params) external payable returns (uint256 amountOut);
}
