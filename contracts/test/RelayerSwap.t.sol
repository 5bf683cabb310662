// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ISwapRouter02} from "./utils/UniswapFixture.sol";
import {RelayerSwapBase, SwapTestWallet} from "./utils/RelayerSwapBase.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";

contract RelayerSwapTest is RelayerSwapBase {
    // ---------------------------------------------------------------- routes

    function test_v2Direct() public {
        uint256 bought = _swapAndCheck(
            _v2Route(_v2Path(address(usdt), address(dai))), address(dai), "v2-direct", "swapWithAuthorization_v2_direct"
        );
        assertGt(bought, 980e18);
    }

    function test_v2TwoHop() public {
        _swapAndCheck(
            _v2Route(_v2Path(address(usdt), weth, address(dai))),
            address(dai),
            "v2-two-hop",
            "swapWithAuthorization_v2_twoHop"
        );
    }

    function test_v3Direct() public {
        uint256 bought = _swapAndCheck(
            _v3Route(_v3Path(address(usdt), 500, address(dai))),
            address(dai),
            "v3-direct",
            "swapWithAuthorization_v3_direct"
        );
        // 0.05% pool beats the 0.3% V2 pair for the same pair: the devnet's "V3 is the better route" case.
        assertGt(bought, _quote(_v2Route(_v2Path(address(usdt), address(dai))), 995e18));
    }

    function test_v3TwoHop() public {
        _swapAndCheck(
            _v3Route(_v3Path(address(usdt), 3000, weth, 3000, address(dai))),
            address(dai),
            "v3-two-hop",
            "swapWithAuthorization_v3_twoHop"
        );
    }

    function test_v2ToWrappedNative() public {
        _swapAndCheck(_v2Route(_v2Path(address(usdt), weth)), weth, "v2-weth", "");
    }

    /// @dev The same swap sent by the user straight to the router, for the gas comparison in snapshots/swap.json.
    function test_gas_directRouterCallByUser() public {
        vm.startPrank(payer);
        usdt.approve(address(v2Router), 995e18);
        address[] memory path = new address[](2);
        (path[0], path[1]) = (address(usdt), address(dai));
        v2Router.swapExactTokensForTokens(995e18, 0, path, recipient, block.timestamp);
        vm.snapshotGasLastCall("swap", "directRouterCall_v2_direct");
        usdt.approve(address(swapRouter02), 995e18);
        swapRouter02.exactInput(
            ISwapRouter02.ExactInputParams(_v3Path(address(usdt), 500, address(dai)), recipient, 995e18, 0)
        );
        vm.snapshotGasLastCall("swap", "directRouterCall_v3_direct");
        vm.stopPrank();
    }

    function test_erc1271Payer() public {
        (address owner, uint256 ownerKey) = makeAddrAndKey("walletOwner");
        SwapTestWallet wallet = new SwapTestWallet(owner);
        usdt.mint(address(wallet), 1000e18);
        wallet.approve(address(usdt), address(relayer), 1000e18);
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "1271");
        a.from = address(wallet);
        Relayer.SwapRoute memory route = _v3Route(_v3Path(address(usdt), 500, address(dai)));
        _bind(a, route);
        relayer.swapWithAuthorization(a, _sign(ownerKey, a), route);
        assertEq(usdt.balanceOf(address(wallet)), 0);
        assertGt(dai.balanceOf(recipient), 0);

        // Signed by someone else than the wallet's owner: refused through ERC-1271.
        a.nonce = "1271-other";
        usdt.mint(address(wallet), 1000e18);
        wallet.approve(address(usdt), address(relayer), 1000e18);
        bytes memory wrong = _sign(payerKey, a);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(a, wrong, route);
    }

    /// @dev Whoever sees a signed swap (mempool, log) submits it first on a route of their choice: another path,
    /// fee tier or router. Each is refused before anything moves; the signed route then executes.
    function test_strangerCannotExecuteOnAnotherRoute() public {
        Relayer.SwapRoute memory signed = _v3Route(_v3Path(address(usdt), 500, address(dai)));
        Relayer.SwapAuthorization memory a =
            _bind(_auth(address(dai), 1000e18, (_quote(signed, 995e18) * 9500) / 10000, "victim"), signed);
        bytes memory sig = _sign(payerKey, a);
        Relayer.SwapRoute[4] memory others = [
            _v2Route(_v2Path(address(usdt), address(dai))), // another router
            _v3Route(_v3Path(address(usdt), 3000, weth, 3000, address(dai))), // another path
            _v3Route(_v3Path(address(usdt), 3000, address(dai))), // another fee tier
            Relayer.SwapRoute(address(v2Router), signed.path) // the signed path on another router
        ];
        vm.startPrank(submitter);
        for (uint256 i; i < others.length; ++i) {
            vm.expectRevert(Relayer.RouteNotSigned.selector);
            relayer.swapWithAuthorization(a, sig, others[i]);
        }
        vm.stopPrank();
        assertEq(usdt.balanceOf(payer), 100_000e18, "victim untouched");
        assertEq(dai.balanceOf(recipient), 0);
        assertFalse(relayer.authorizationState(payer, "victim"));

        // Claiming another route in the authorization breaks the signature instead.
        Relayer.SwapAuthorization memory rebound =
            _bind(_auth(address(dai), 1000e18, a.minBuyAmount, "victim"), others[0]);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(rebound, sig, others[0]);

        uint256 quoted = _quote(signed, 995e18);
        vm.expectEmit(address(relayer));
        emit Relayer.SwapExecuted(
            payer, "victim", recipient, address(usdt), address(dai), 1000e18, 5e18, quoted, _structHash(a)
        );
        vm.prank(submitter);
        assertEq(relayer.swapWithAuthorization(a, sig, signed), quoted);
        assertEq(dai.balanceOf(recipient), quoted);
    }

    // ---------------------------------------------------------------- smart wallets

    function test_swapBatch_walletPaysItself() public {
        address wallet = makeAddr("wallet");
        usdt.mint(wallet, 1000e18);
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), weth, address(dai)));
        uint256 quoted = _quote(route, 995e18);
        Relayer.SwapOrder memory order = Relayer.SwapOrder(address(usdt), address(dai), 1000e18, quoted, wallet, 5e18);

        vm.startPrank(wallet);
        usdt.approve(address(relayer), 1000e18);
        vm.expectEmit(address(relayer));
        emit Relayer.SwapExecuted(
            wallet, bytes32(0), wallet, address(usdt), address(dai), 1000e18, 5e18, quoted, bytes32(0)
        );
        uint256 bought = relayer.swapBatch(order, route);
        vm.stopPrank();

        assertEq(bought, quoted);
        assertEq(dai.balanceOf(wallet), quoted);
        assertEq(usdt.balanceOf(wallet), 0);
        assertEq(usdt.balanceOf(feeRecipient), 5e18);
        _assertRelayerEmpty(route.router);
    }

    function test_swapBatch_pullsOnlyFromTheCaller() public {
        // The payer approved the relayer; a stranger's swapBatch still pulls from the stranger (who has nothing).
        address stranger = makeAddr("stranger");
        Relayer.SwapOrder memory order = Relayer.SwapOrder(address(usdt), address(dai), 1000e18, 1, stranger, 0);
        vm.prank(stranger);
        vm.expectRevert(bytes("USDT: insufficient allowance"));
        relayer.swapBatch(order, _v2Route(_v2Path(address(usdt), address(dai))));
        assertEq(usdt.balanceOf(payer), 100_000e18);
    }

    function test_swapBatch_v3AndChecks() public {
        address wallet = makeAddr("wallet");
        usdt.mint(wallet, 2000e18);
        vm.startPrank(wallet);
        usdt.approve(address(relayer), 2000e18);
        Relayer.SwapOrder memory order = Relayer.SwapOrder(address(usdt), address(dai), 1000e18, 1, wallet, 0);
        uint256 bought = relayer.swapBatch(order, _v3Route(_v3Path(address(usdt), 3000, weth, 3000, address(dai))));
        assertEq(dai.balanceOf(wallet), bought);
        // The same checks as the authorized path: router whitelist and path ends.
        vm.expectRevert(abi.encodeWithSelector(Relayer.RouterNotWhitelisted.selector, address(quoterV2)));
        relayer.swapBatch(order, Relayer.SwapRoute(address(quoterV2), _v3Path(address(usdt), 500, address(dai))));
        vm.expectRevert(Relayer.InvalidSwapPath.selector);
        relayer.swapBatch(order, _v3Route(_v3Path(address(dai), 500, address(usdt))));
        vm.stopPrank();
    }
}
