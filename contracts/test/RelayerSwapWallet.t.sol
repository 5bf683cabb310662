// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "forge-std/Test.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {Execution} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {AATestBase} from "./utils/AATestBase.sol";
import {UniswapFixture, IWETH9} from "./utils/UniswapFixture.sol";
import {Relayer} from "../Relayer.sol";
import {Paymaster} from "../Paymaster.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";
import {TestDAI} from "../test-tokens/TestDAI.sol";

/// @dev A factory wallet swaps in one sponsored UserOp: approve(relayer, sellAmount) + relayer.swapBatch. The
/// wallet pays exactly sellAmount, the fee recipient gets the fee, the wallet gets the output, no gas of its own.
contract RelayerSwapWalletTest is AATestBase, UniswapFixture {
    Relayer internal relayer;
    Paymaster internal paymaster;
    TestUSDT internal usdt;
    TestDAI internal dai;
    uint256 internal pmSignerKey;
    address internal feeRecipient = makeAddr("feeRecipient");

    function setUp() public override {
        super.setUp();
        vm.warp(1_700_000_000);
        _deployUniswap();
        address pmSigner;
        (pmSigner, pmSignerKey) = makeAddrAndKey("pmSigner");
        relayer = new Relayer("relay402", "1", address(this));
        paymaster = new Paymaster(entryPoint, pmSigner, address(this));
        paymaster.deposit{value: 1 ether}();
        usdt = new TestUSDT();
        dai = new TestDAI();
        usdt.mint(address(this), 2_000_000e18);
        dai.mint(address(this), 1_000_000e18);
        vm.deal(address(this), 1000 ether);
        IWETH9(weth).deposit{value: 1000 ether}();
        _addV2(address(usdt), address(dai), 1_000_000e18, 1_000_000e18);
        _addV3(address(usdt), weth, 3000, 1_000_000e18, 1000e18);
        relayer.setTokenWhitelisted(address(usdt), true);
        relayer.setRouter(address(v2Router), relayer.ROUTER_V2());
        relayer.setRouter(address(swapRouter02), relayer.ROUTER_V3());
        relayer.setFeeRecipient(feeRecipient);
    }

    function _swapOp(
        address wallet,
        uint256 ownerKey,
        Relayer.SwapOrder memory order,
        Relayer.SwapRoute memory route
    ) internal view returns (PackedUserOperation memory op) {
        Execution[] memory calls = new Execution[](2);
        calls[0] = Execution(address(usdt), 0, abi.encodeCall(TestUSDT.approve, (address(relayer), order.sellAmount)));
        calls[1] = Execution(address(relayer), 0, abi.encodeCall(Relayer.swapBatch, (order, route)));
        op = _userOp(wallet, _batch(calls));
        op = _sponsor(op, paymaster, pmSignerKey, uint48(block.timestamp + 300), 0);
        op = _signUserOp191(op, ownerKey);
    }

    function _walletSwap(string memory name, Relayer.SwapRoute memory route, address buyToken) internal {
        (address owner, uint256 ownerKey) = makeAddrAndKey("walletOwner");
        address wallet = factory.createAccount(owner, bytes32(0));
        usdt.mint(wallet, 1000e18);
        uint256 quoted = _quoteOut(route, 995e18);
        Relayer.SwapOrder memory order =
            Relayer.SwapOrder(address(usdt), buyToken, 1000e18, (quoted * 9950) / 10000, wallet, 5e18);

        vm.recordLogs();
        _handle(_swapOp(wallet, ownerKey, order, route));
        vm.snapshotGasLastCall("walletSwap", string.concat(name, "_handleOps"));
        (bool success, uint256 actualGasUsed) = _userOpResult(vm.getRecordedLogs());
        assertTrue(success, "UserOp succeeded");
        vm.snapshotValue("walletSwap", string.concat(name, "_actualGasUsed"), actualGasUsed);

        assertEq(IERC20(buyToken).balanceOf(wallet), quoted, "wallet got the quoted output");
        assertEq(usdt.balanceOf(wallet), 0, "wallet paid exactly sellAmount");
        assertEq(usdt.balanceOf(feeRecipient), 5e18, "fee paid");
        assertEq(wallet.balance, 0, "no gas of its own");
        assertEq(usdt.balanceOf(address(relayer)), 0);
        assertEq(IERC20(buyToken).balanceOf(address(relayer)), 0);
    }

    function _quoteOut(Relayer.SwapRoute memory route, uint256 amountIn) internal returns (uint256) {
        if (route.router == address(v2Router)) {
            address[] memory path = new address[](2);
            (path[0], path[1]) = (address(usdt), address(dai));
            return v2Router.getAmountsOut(amountIn, path)[1];
        }
        (uint256 out,,,) = quoterV2.quoteExactInput(route.path, amountIn);
        return out;
    }

    function test_walletSwapUserOp_v2() public {
        _walletSwap(
            "walletSwap_v2_direct",
            Relayer.SwapRoute(address(v2Router), _v2Path(address(usdt), address(dai))),
            address(dai)
        );
    }

    function test_walletSwapUserOp_v3() public {
        _walletSwap(
            "walletSwap_v3_direct",
            Relayer.SwapRoute(address(swapRouter02), _v3Path(address(usdt), 3000, weth)),
            weth
        );
    }

    /// @dev A minimum the pool cannot meet reverts the wallet's call inside the UserOp: nothing moves but gas.
    function test_walletSwapBelowMinimumMovesNothing() public {
        (address owner, uint256 ownerKey) = makeAddrAndKey("walletOwner");
        address wallet = factory.createAccount(owner, bytes32(0));
        usdt.mint(wallet, 1000e18);
        Relayer.SwapRoute memory route = Relayer.SwapRoute(address(v2Router), _v2Path(address(usdt), address(dai)));
        uint256 quoted = _quoteOut(route, 995e18);
        Relayer.SwapOrder memory order = Relayer.SwapOrder(address(usdt), address(dai), 1000e18, quoted + 1, wallet, 5e18);
        vm.recordLogs();
        _handle(_swapOp(wallet, ownerKey, order, route));
        (bool success,) = _userOpResult(vm.getRecordedLogs());
        assertFalse(success);
        assertEq(usdt.balanceOf(wallet), 1000e18);
        assertEq(dai.balanceOf(wallet), 0);
        assertEq(usdt.balanceOf(feeRecipient), 0);
    }
}
