// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ISwapRouter02} from "./utils/UniswapFixture.sol";
import {RelayerSwapBase, FeeOnTransferToken, GreedyRouter} from "./utils/RelayerSwapBase.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";

/// Swaps the relayer refuses or reverts: sandwiches past the minimum, bad routes and shapes, replays, settings.
contract RelayerSwapRefusalsTest is RelayerSwapBase {
    // ---------------------------------------------------------------- price protection

    /// @dev A front-runner moves the price between signing and settlement: the router's minimum (the signed one)
    /// makes the swap revert, nothing moves, and the same signature works once the price is back.
    function _sandwich(Relayer.SwapRoute memory route, bytes memory routerError) internal {
        uint256 sellAmount = 1000e18;
        uint256 quoted = _quote(route, sellAmount - sellAmount / 200);
        Relayer.SwapAuthorization memory a =
            _bind(_auth(address(dai), sellAmount, (quoted * 9950) / 10000, "sandwich"), route);
        bytes memory sig = _sign(payerKey, a);

        address attacker = makeAddr("attacker");
        usdt.mint(attacker, 20_000e18);
        vm.startPrank(attacker);
        usdt.approve(route.router, type(uint256).max);
        uint256 attackerDai;
        if (route.router == address(v2Router)) {
            address[] memory path = new address[](2);
            (path[0], path[1]) = (address(usdt), address(dai));
            attackerDai = v2Router.swapExactTokensForTokens(20_000e18, 0, path, attacker, block.timestamp)[1];
        } else {
            attackerDai = swapRouter02.exactInput(ISwapRouter02.ExactInputParams(route.path, attacker, 20_000e18, 0));
        }
        vm.stopPrank();
        assertLt(_quote(route, sellAmount - sellAmount / 200), a.minBuyAmount, "price moved past the minimum");

        vm.expectRevert(routerError);
        relayer.swapWithAuthorization(a, sig, route);
        assertEq(usdt.balanceOf(payer), 100_000e18, "payer untouched");
        assertEq(dai.balanceOf(recipient), 0);
        assertFalse(relayer.authorizationState(payer, "sandwich"));
        _assertRelayerEmpty(route.router);

        // The attacker sells back; the price recovers and the signed swap goes through at >= its minimum.
        vm.startPrank(attacker);
        dai.approve(route.router, type(uint256).max);
        if (route.router == address(v2Router)) {
            address[] memory back = new address[](2);
            (back[0], back[1]) = (address(dai), address(usdt));
            v2Router.swapExactTokensForTokens(attackerDai, 0, back, attacker, block.timestamp);
        } else {
            swapRouter02.exactInput(
                ISwapRouter02.ExactInputParams(_v3Path(address(dai), 500, address(usdt)), attacker, attackerDai, 0)
            );
        }
        vm.stopPrank();
        uint256 bought = relayer.swapWithAuthorization(a, sig, route);
        assertGe(bought, a.minBuyAmount);
        assertEq(dai.balanceOf(recipient), bought);
    }

    function test_sandwichPastMinimumReverts_v2() public {
        _sandwich(_v2Route(_v2Path(address(usdt), address(dai))), bytes("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT"));
    }

    function test_sandwichPastMinimumReverts_v3() public {
        _sandwich(_v3Route(_v3Path(address(usdt), 500, address(dai))), bytes("Too little received"));
    }

    function test_feeOnTransferBuyTokenShortOfMinimumReverts() public {
        FeeOnTransferToken fot = new FeeOnTransferToken();
        fot.mint(address(this), POOL);
        _addV2(address(usdt), address(fot), POOL / 2, POOL / 2);
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), address(fot)));
        uint256 quoted = _quote(route, 995e18);
        Relayer.SwapAuthorization memory a = _bind(_auth(address(fot), 1000e18, (quoted * 9950) / 10000, "fot"), route);
        bytes memory sig = _sign(payerKey, a);
        // The router's own check passes (it computes from reserves); the recipient receives 1% less.
        uint256 received = quoted - quoted / 100;
        vm.expectRevert(abi.encodeWithSelector(Relayer.InsufficientOutput.selector, received, a.minBuyAmount));
        relayer.swapWithAuthorization(a, sig, route);
        assertEq(usdt.balanceOf(payer), 100_000e18);
    }

    // ---------------------------------------------------------------- refusals

    function test_routerNotWhitelisted() public {
        // A real, working V2 router, just not whitelisted.
        address other = _deploy(
            string.concat(UNISWAP, "v2-periphery/build/UniswapV2Router02.json"), abi.encode(address(v2Factory), weth)
        );
        Relayer.SwapRoute memory otherRoute = Relayer.SwapRoute(other, _v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory signedOther = _bind(_auth(address(dai), 1000e18, 1, "router"), otherRoute);
        bytes memory otherSig = _sign(payerKey, signedOther);
        vm.expectRevert(abi.encodeWithSelector(Relayer.RouterNotWhitelisted.selector, other));
        relayer.swapWithAuthorization(signedOther, otherSig, otherRoute);
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "router");
        bytes memory sig = _sign(payerKey, a);

        // Removing a router from the whitelist takes effect.
        vm.prank(relayerOwner);
        relayer.setRouter(address(v2Router), 0);
        vm.expectRevert(abi.encodeWithSelector(Relayer.RouterNotWhitelisted.selector, address(v2Router)));
        relayer.swapWithAuthorization(a, sig, _v2Route(_v2Path(address(usdt), address(dai))));
        assertEq(usdt.balanceOf(payer), 100_000e18);
    }

    function test_pathMustRunFromSellTokenToBuyToken() public {
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "path");
        bytes[4] memory v2Bad = [
            _v2Path(weth, address(dai)), // does not start at the sell token
            _v2Path(address(usdt), weth), // does not end at the buy token
            abi.encodePacked(address(usdt)), // one token
            abi.encodePacked(address(usdt), bytes1(0), address(dai)) // not 20-byte steps
        ];
        for (uint256 i; i < v2Bad.length; ++i) {
            _bind(a, _v2Route(v2Bad[i]));
            bytes memory sig = _sign(payerKey, a);
            vm.expectRevert(Relayer.InvalidSwapPath.selector);
            relayer.swapWithAuthorization(a, sig, _v2Route(v2Bad[i]));
        }
        bytes[3] memory v3Bad = [
            _v3Path(weth, 3000, address(dai)),
            _v3Path(address(usdt), 3000, weth),
            _v2Path(address(usdt), address(dai)) // a V2 path for a V3 router
        ];
        for (uint256 i; i < v3Bad.length; ++i) {
            _bind(a, _v3Route(v3Bad[i]));
            bytes memory sig = _sign(payerKey, a);
            vm.expectRevert(Relayer.InvalidSwapPath.selector);
            relayer.swapWithAuthorization(a, sig, _v3Route(v3Bad[i]));
        }
        assertEq(usdt.balanceOf(payer), 100_000e18);
        assertFalse(relayer.authorizationState(payer, "path"));
    }

    function test_replayedNonce() public {
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "replay");
        bytes memory sig = _sign(payerKey, a);
        relayer.swapWithAuthorization(a, sig, route);
        uint256 payerAfterFirst = usdt.balanceOf(payer);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, bytes32("replay")));
        relayer.swapWithAuthorization(a, sig, route);
        assertEq(usdt.balanceOf(payer), payerAfterFirst);
    }

    function test_nonceSpaceSharedWithTransfersAndCancel() public {
        // A canceled nonce cannot be swapped.
        bytes32 nonce = "shared";
        bytes32 cancelHash = keccak256(abi.encode(relayer.CANCEL_AUTHORIZATION_TYPEHASH(), payer, nonce));
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(payerKey, MessageHashUtils.toTypedDataHash(_domainSeparator(), cancelHash));
        relayer.cancelAuthorization(payer, nonce, abi.encodePacked(r, s, v));
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, nonce);
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, nonce));
        relayer.swapWithAuthorization(a, sig, _v2Route(_v2Path(address(usdt), address(dai))));

        // A swapped nonce is used for transfers too.
        a.nonce = "swapped";
        relayer.swapWithAuthorization(a, _sign(payerKey, a), _v2Route(_v2Path(address(usdt), address(dai))));
        assertTrue(relayer.authorizationState(payer, "swapped"));
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.AuthorizationAlreadyUsed.selector, payer, bytes32("swapped")));
        relayer.transferWithAuthorization(address(usdt), payer, recipient, 1, 0, block.timestamp + 60, "swapped", "");
    }

    function test_expiredAndNotYetValid() public {
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "time");
        a.validBefore = block.timestamp - 1;
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert(Relayer.AuthorizationExpired.selector);
        relayer.swapWithAuthorization(a, sig, route);

        a.validAfter = block.timestamp + 10;
        a.validBefore = block.timestamp + 100;
        sig = _sign(payerKey, a);
        vm.expectRevert(Relayer.AuthorizationNotYetValid.selector);
        relayer.swapWithAuthorization(a, sig, route);
        assertEq(usdt.balanceOf(payer), 100_000e18);
    }

    function test_wrongSignerAndTamperedFields() public {
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 990e18, "tamper");
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes memory wrongSigner = _sign(otherKey, a);
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(a, wrongSigner, route);

        bytes memory sig = _sign(payerKey, a);
        Relayer.SwapAuthorization memory lowerMinimum = _auth(address(dai), 1000e18, 1, "tamper");
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(lowerMinimum, sig, route);

        Relayer.SwapAuthorization memory otherRecipient = _auth(address(dai), 1000e18, 990e18, "tamper");
        otherRecipient.recipient = submitter;
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(otherRecipient, sig, route);

        Relayer.SwapAuthorization memory higherFee = _auth(address(dai), 1000e18, 990e18, "tamper");
        higherFee.fee = 100e18;
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(higherFee, sig, route);

        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.swapWithAuthorization(a, hex"1234", route);
        assertEq(usdt.balanceOf(payer), 100_000e18);
    }

    function test_sellTokenNotWhitelisted() public {
        dai.mint(payer, 1000e18);
        vm.prank(payer);
        dai.approve(address(relayer), type(uint256).max);
        vm.prank(relayerOwner);
        relayer.setTokenWhitelisted(address(dai), false);
        Relayer.SwapAuthorization memory a = _auth(address(usdt), 1000e18, 1, "sell");
        a.sellToken = address(dai);
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, address(dai)));
        relayer.swapWithAuthorization(a, sig, _v2Route(_v2Path(address(dai), address(usdt))));
    }

    function test_invalidSwapShapes() public {
        Relayer.SwapRoute memory route = _v2Route(_v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "shape");
        a.fee = 1000e18; // nothing left to swap
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert(Relayer.InvalidSwap.selector);
        relayer.swapWithAuthorization(a, sig, route);

        a = _auth(address(dai), 1000e18, 1, "shape");
        a.recipient = address(relayer); // output would stay in the relayer
        sig = _sign(payerKey, a);
        vm.expectRevert(Relayer.InvalidSwap.selector);
        relayer.swapWithAuthorization(a, sig, route);

        Relayer.SwapRoute memory roundTrip = _v2Route(_v2Path(address(usdt), address(dai), address(usdt)));
        a = _bind(_auth(address(usdt), 1000e18, 1, "shape"), roundTrip);
        sig = _sign(payerKey, a);
        vm.expectRevert(Relayer.InvalidSwap.selector);
        relayer.swapWithAuthorization(a, sig, roundTrip);
    }

    /// @dev Even a whitelisted router that keeps the input cannot make the payer lose it: the recipient's
    /// balance check reverts the whole swap.
    function test_misbehavingWhitelistedRouterCannotTakeTheInput() public {
        address thief = makeAddr("thief");
        GreedyRouter greedy = new GreedyRouter(thief);
        vm.prank(relayerOwner);
        relayer.setRouter(address(greedy), 1);
        Relayer.SwapRoute memory route = Relayer.SwapRoute(address(greedy), _v2Path(address(usdt), address(dai)));
        Relayer.SwapAuthorization memory a = _bind(_auth(address(dai), 1000e18, 1, "greedy"), route);
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert(abi.encodeWithSelector(Relayer.InsufficientOutput.selector, 0, 1));
        relayer.swapWithAuthorization(a, sig, route);
        assertEq(usdt.balanceOf(payer), 100_000e18);
        assertEq(usdt.balanceOf(thief), 0);
    }

    /// @dev SwapRouter02 reads recipient address(1) as msg.sender (the relayer) and address(2) as itself (where
    /// anyone could sweep it): the output never reaches the signed recipient, so the swap reverts.
    function test_routerRecipientAliasesRevert() public {
        Relayer.SwapRoute memory route = _v3Route(_v3Path(address(usdt), 500, address(dai)));
        for (uint160 alias_ = 1; alias_ <= 2; ++alias_) {
            Relayer.SwapAuthorization memory a = _bind(_auth(address(dai), 1000e18, 1, bytes32(uint256(alias_))), route);
            a.recipient = address(alias_);
            bytes memory sig = _sign(payerKey, a);
            vm.expectRevert(abi.encodeWithSelector(Relayer.InsufficientOutput.selector, 0, 1));
            relayer.swapWithAuthorization(a, sig, route);
        }
        assertEq(usdt.balanceOf(payer), 100_000e18);
        assertEq(dai.balanceOf(address(swapRouter02)), 0);
        _assertRelayerEmpty(address(swapRouter02));
    }

    function test_paused() public {
        vm.prank(relayerOwner);
        relayer.pause();
        Relayer.SwapAuthorization memory a = _auth(address(dai), 1000e18, 1, "paused");
        bytes memory sig = _sign(payerKey, a);
        vm.expectRevert();
        relayer.swapWithAuthorization(a, sig, _v2Route(_v2Path(address(usdt), address(dai))));
    }

    function test_ownerOnlySettings() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        relayer.setRouter(address(this), 1);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        relayer.setFeeRecipient(address(this));
        vm.startPrank(relayerOwner);
        vm.expectRevert(abi.encodeWithSelector(Relayer.InvalidRouterKind.selector, uint8(3)));
        relayer.setRouter(address(this), 3);
        vm.expectRevert(Relayer.InvalidFeeRecipient.selector);
        relayer.setFeeRecipient(address(0));
        vm.expectEmit(address(relayer));
        emit Relayer.RouterUpdated(address(this), 2);
        relayer.setRouter(address(this), 2);
        vm.stopPrank();
        assertEq(relayer.routerKind(address(this)), 2);
        assertEq(relayer.feeRecipient(), feeRecipient);
        assertEq(new Relayer("x", "1", relayerOwner).feeRecipient(), relayerOwner, "defaults to the owner");
    }

    /// @dev Any amount: the payer loses exactly sellAmount, the fee recipient gets the fee, the recipient the rest
    /// of the value, and the relayer keeps nothing.
    function testFuzz_nothingStaysInTheRelayer(uint256 sellAmount, uint256 fee, bool v3) public {
        // At least 0.001 usdt swapped: below that the middle hop (weth, 1000x the price) rounds to zero.
        sellAmount = bound(sellAmount, 2e15, 50_000e18);
        fee = bound(fee, 0, sellAmount - 1e15);
        Relayer.SwapRoute memory route = v3
            ? _v3Route(_v3Path(address(usdt), 3000, weth, 3000, address(dai)))
            : _v2Route(_v2Path(address(usdt), weth, address(dai)));
        uint256 quoted = _quote(route, sellAmount - fee);
        vm.assume(quoted > 0);
        Relayer.SwapAuthorization memory a = _bind(_auth(address(dai), sellAmount, quoted, "fuzz"), route);
        a.fee = fee;
        relayer.swapWithAuthorization(a, _sign(payerKey, a), route);
        assertEq(usdt.balanceOf(payer), 100_000e18 - sellAmount);
        assertEq(usdt.balanceOf(feeRecipient), fee);
        assertEq(dai.balanceOf(recipient), quoted);
        _assertRelayerEmpty(route.router);
    }
}
