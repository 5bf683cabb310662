// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

// The routers are called as the relayer calls them (SwapRouter02: exactInput without a deadline).
import {IV2Router, IV3Router as ISwapRouter02} from "../../relayer/DexRouters.sol";

interface IUniswapV2Factory {
    function getPair(address a, address b) external view returns (address);
}

interface IUniswapV2Router02 is IV2Router {
    function addLiquidity(
        address tokenA,
        address tokenB,
        uint256 amountADesired,
        uint256 amountBDesired,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external returns (uint256, uint256, uint256);

    function getAmountsOut(uint256 amountIn, address[] calldata path) external view returns (uint256[] memory);
}

interface IUniswapV3Factory {
    function getPool(address a, address b, uint24 fee) external view returns (address);
}

interface INonfungiblePositionManager {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96)
        external
        payable
        returns (address pool);

    function mint(MintParams calldata params) external payable returns (uint256, uint128, uint256, uint256);
}

interface IQuoterV2 {
    function quoteExactInput(bytes memory path, uint256 amountIn)
        external
        returns (uint256 amountOut, uint160[] memory, uint32[] memory, uint256 gasEstimate);
}

interface IWETH9 {
    function deposit() external payable;
}

/// @dev Uniswap V2 and V3 exactly as published on npm (never recompiled: the routers find pairs and pools by
/// hashing their creation code, so only the published bytecode routes). Reads the JSON build artifacts.
abstract contract UniswapFixture is Test {
    using SafeERC20 for IERC20;

    bytes32 internal constant V2_INIT_CODE_HASH = 0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f;
    bytes32 internal constant V3_INIT_CODE_HASH = 0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54;
    string internal constant UNISWAP = "node_modules/@uniswap/";
    /// @dev @uniswap/swap-router-contracts 1.3.1's SwapRouter02, committed as the package ships it (scripts/devnet/dex.ts).
    string internal constant VENDORED = "artifacts/uniswap/swap-router-contracts-1.3.1/";

    address internal weth;
    IUniswapV2Factory internal v2Factory;
    IUniswapV2Router02 internal v2Router;
    IUniswapV3Factory internal v3Factory;
    INonfungiblePositionManager internal positionManager;
    ISwapRouter02 internal swapRouter02;
    IQuoterV2 internal quoterV2;

    function _deployUniswap() internal {
        assertEq(
            keccak256(_artifact(string.concat(UNISWAP, "v2-core/build/UniswapV2Pair.json"))),
            V2_INIT_CODE_HASH,
            "V2 pair init code"
        );
        assertEq(
            keccak256(
                _artifact(string.concat(UNISWAP, "v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"))
            ),
            V3_INIT_CODE_HASH,
            "V3 pool init code"
        );
        weth = _deploy(string.concat(UNISWAP, "v2-periphery/build/WETH9.json"), "");
        address v2f = _deploy(string.concat(UNISWAP, "v2-core/build/UniswapV2Factory.json"), abi.encode(address(this)));
        v2Factory = IUniswapV2Factory(v2f);
        v2Router = IUniswapV2Router02(
            _deploy(string.concat(UNISWAP, "v2-periphery/build/UniswapV2Router02.json"), abi.encode(v2f, weth))
        );
        address v3f = _deploy(
            string.concat(UNISWAP, "v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json"), ""
        );
        v3Factory = IUniswapV3Factory(v3f);
        address npm = _deploy(
            string.concat(
                UNISWAP,
                "v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json"
            ),
            abi.encode(v3f, weth, address(0))
        );
        positionManager = INonfungiblePositionManager(npm);
        swapRouter02 =
            ISwapRouter02(_deploy(string.concat(VENDORED, "SwapRouter02.json"), abi.encode(v2f, v3f, npm, weth)));
        quoterV2 = IQuoterV2(
            _deploy(
                string.concat(UNISWAP, "v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json"),
                abi.encode(v3f, weth)
            )
        );
    }

    /// @dev Creation code from a waffle (`bytecode` without 0x) or hardhat (`bytecode` with 0x) artifact.
    function _artifact(string memory path) internal view returns (bytes memory) {
        string memory hexCode = vm.parseJsonString(vm.readFile(path), ".bytecode");
        bytes memory raw = bytes(hexCode);
        if (raw.length < 2 || raw[0] != "0" || raw[1] != "x") hexCode = string.concat("0x", hexCode);
        return vm.parseBytes(hexCode);
    }

    function _deploy(string memory path, bytes memory args) internal returns (address deployed) {
        bytes memory initCode = abi.encodePacked(_artifact(path), args);
        assembly ("memory-safe") {
            deployed := create(0, add(initCode, 0x20), mload(initCode))
        }
        require(deployed != address(0), string.concat("deploy failed: ", path));
    }

    /// @dev Liquidity from this contract, which must hold the tokens.
    function _addV2(address a, address b, uint256 amountA, uint256 amountB) internal {
        IERC20(a).forceApprove(address(v2Router), amountA);
        IERC20(b).forceApprove(address(v2Router), amountB);
        v2Router.addLiquidity(a, b, amountA, amountB, amountA, amountB, address(this), block.timestamp);
    }

    /// @dev A full-range V3 position at the price amountB / amountA (raw units); returns the pool.
    function _addV3(address a, address b, uint24 fee, uint256 amountA, uint256 amountB) internal returns (address) {
        (address t0, address t1, uint256 a0, uint256 a1) = a < b ? (a, b, amountA, amountB) : (b, a, amountB, amountA);
        // sqrt(a1 / a0) * 2^96, split so the product stays below 2^256 for amounts up to 2^100.
        uint160 sqrtPriceX96 = uint160(_sqrt((a1 << 96) / a0) << 48);
        address pool = positionManager.createAndInitializePoolIfNecessary(t0, t1, fee, sqrtPriceX96);
        IERC20(t0).forceApprove(address(positionManager), a0);
        IERC20(t1).forceApprove(address(positionManager), a1);
        int24 spacing = fee == 500 ? int24(10) : fee == 3000 ? int24(60) : int24(200);
        int24 maxTick = (887272 / spacing) * spacing;
        positionManager.mint(
            INonfungiblePositionManager.MintParams(
                t0, t1, fee, -maxTick, maxTick, a0, a1, 0, 0, address(this), block.timestamp
            )
        );
        return pool;
    }

    function _v2Path(address a, address b) internal pure returns (bytes memory) {
        return abi.encodePacked(a, b);
    }

    function _v2Path(address a, address b, address c) internal pure returns (bytes memory) {
        return abi.encodePacked(a, b, c);
    }

    function _v3Path(address a, uint24 fee, address b) internal pure returns (bytes memory) {
        return abi.encodePacked(a, fee, b);
    }

    function _v3Path(address a, uint24 feeAB, address b, uint24 feeBC, address c) internal pure returns (bytes memory) {
        return abi.encodePacked(a, feeAB, b, feeBC, c);
    }

    function _sqrt(uint256 x) private pure returns (uint256 y) {
        if (x == 0) return 0;
        uint256 z = (x + 1) / 2;
        y = x;
        while (z < y) {
            y = z;
            z = (x / z + z) / 2;
        }
    }
}
