// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {UniswapFixture, IWETH9, ISwapRouter02} from "./utils/UniswapFixture.sol";
import {Relayer} from "../Relayer.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";
import {TestDAI} from "../test-tokens/TestDAI.sol";

/// @dev Buy token that burns 1% of every transfer: a router's own minimum (computed from reserves) is met while
/// the recipient receives less, which only the relayer's balance check catches.
contract FeeOnTransferToken is ERC20 {
    constructor() ERC20("Fee On Transfer", "FOT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) {
            uint256 burned = value / 100;
            super._update(from, address(0), burned);
            value -= burned;
        }
        super._update(from, to, value);
    }
}

/// @dev A whitelisted router gone bad: takes everything it may (the relayer's exact approval) and tries more,
/// pays nothing. Its selector matches swapExactTokensForTokens so the relayer's V2 call reaches it.
contract GreedyRouter {
    address internal immutable thief;

    constructor(address thief_) {
        thief = thief_;
    }

    function swapExactTokensForTokens(uint256 amountIn, uint256, address[] calldata path, address, uint256)
        external
        returns (uint256[] memory amounts)
    {
        (bool more,) = path[0].call(
            abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, thief, amountIn + 1)
        );
        more; // refused: the approval is exactly amountIn
        (bool ok,) =
            path[0].call(abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, thief, amountIn));
        require(ok, "take");
        amounts = new uint256[](path.length);
    }
}

/// @dev ERC-1271 payer accepting its owner's signatures.
contract SwapTestWallet is IERC1271 {
    address internal immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @dev Low-level: TestUSDT's approve returns nothing.
    function approve(address token, address spender, uint256 amount) external {
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", spender, amount));
        require(ok, "approve failed");
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && recovered == owner ? IERC1271.isValidSignature.selector : bytes4(0);
    }
}

contract RelayerSwapTest is UniswapFixture {
    bytes32 internal constant SWAP_TYPEHASH = keccak256(
        "SwapWithAuthorization(address from,address sellToken,address buyToken,uint256 sellAmount,uint256 minBuyAmount,address recipient,uint256 fee,address router,bytes32 routeHash,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    uint256 internal constant POOL = 1_000_000e18;

    Relayer internal relayer;
    TestUSDT internal usdt;
    TestDAI internal dai;
    address internal relayerOwner = makeAddr("relayerOwner");
    address internal feeRecipient = makeAddr("feeRecipient");
    address internal recipient = makeAddr("recipient");
    address internal submitter = makeAddr("submitter");
    address internal payer;
    uint256 internal payerKey;

    function setUp() public {
        vm.warp(1_700_000_000);
        _deployUniswap();
        relayer = new Relayer("relay402", "1", relayerOwner);
        usdt = new TestUSDT();
        dai = new TestDAI();

        usdt.mint(address(this), 10 * POOL);
        dai.mint(address(this), 10 * POOL);
        vm.deal(address(this), 10_000 ether);
        IWETH9(weth).deposit{value: 10_000 ether}();
        // V2: usdt/dai 1:1, usdt/weth and weth/dai at 1 weth = 1000. V3: the same pairs, usdt/dai at 0.05%.
        _addV2(address(usdt), address(dai), POOL, POOL);
        _addV2(address(usdt), weth, POOL, POOL / 1000);
        _addV2(weth, address(dai), POOL / 1000, POOL);
        _addV3(address(usdt), address(dai), 500, POOL, POOL);
        _addV3(address(usdt), weth, 3000, POOL, POOL / 1000);
        _addV3(weth, address(dai), 3000, POOL / 1000, POOL);

        vm.startPrank(relayerOwner);
        relayer.setTokenWhitelisted(address(usdt), true);
        relayer.setTokenWhitelisted(address(dai), true);
        relayer.setRouter(address(v2Router), relayer.ROUTER_V2());
        relayer.setRouter(address(swapRouter02), relayer.ROUTER_V3());
        relayer.setFeeRecipient(feeRecipient);
        vm.stopPrank();

        (payer, payerKey) = makeAddrAndKey("payer");
        usdt.mint(payer, 100_000e18);
        vm.prank(payer);
        usdt.approve(address(relayer), type(uint256).max);
    }

    // ---------------------------------------------------------------- helpers

    function _auth(address buyToken, uint256 sellAmount, uint256 minBuyAmount, bytes32 nonce)
        internal
        view
        returns (Relayer.SwapAuthorization memory)
    {
        return Relayer.SwapAuthorization({
            from: payer,
            sellToken: address(usdt),
            buyToken: buyToken,
            sellAmount: sellAmount,
            minBuyAmount: minBuyAmount,
            recipient: recipient,
            fee: sellAmount / 200,
            router: address(v2Router),
            routeHash: keccak256(_v2Path(address(usdt), address(dai))),
            validAfter: block.timestamp - 1,
            validBefore: block.timestamp + 120,
            nonce: nonce
        });
    }

    function _domainSeparator() internal view returns (bytes32) {
        (, string memory name, string memory version, uint256 chainId, address verifying,,) = relayer.eip712Domain();
        return
            keccak256(
                abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), chainId, verifying)
            );
    }

    /// @dev Field by field in the order of the type string (two halves only to keep the stack small).
    function _structHash(Relayer.SwapAuthorization memory a) internal pure returns (bytes32) {
        bytes memory head = abi.encode(SWAP_TYPEHASH, a.from, a.sellToken, a.buyToken, a.sellAmount, a.minBuyAmount);
        bytes memory tail = abi.encode(a.recipient, a.fee, a.router, a.routeHash, a.validAfter, a.validBefore, a.nonce);
        return keccak256(bytes.concat(head, tail));
    }

    function _digest(Relayer.SwapAuthorization memory a) internal view returns (bytes32) {
        return MessageHashUtils.toTypedDataHash(_domainSeparator(), _structHash(a));
    }

    /// @dev Binds the authorization to `route` (its router and keccak256 of its packed path), as the payer signs it.
    function _bind(Relayer.SwapAuthorization memory a, Relayer.SwapRoute memory route)
        internal
        pure
        returns (Relayer.SwapAuthorization memory)
    {
        a.router = route.router;
        a.routeHash = keccak256(route.path);
        return a;
    }

    function _sign(uint256 key, Relayer.SwapAuthorization memory a) internal view returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _digest(a));
        return abi.encodePacked(r, s, v);
    }

    function _v2Route(bytes memory path) internal view returns (Relayer.SwapRoute memory) {
        return Relayer.SwapRoute(address(v2Router), path);
    }

    function _v3Route(bytes memory path) internal view returns (Relayer.SwapRoute memory) {
        return Relayer.SwapRoute(address(swapRouter02), path);
    }

    /// @dev What the router itself says `amountIn` buys now (V2 getAmountsOut, V3 QuoterV2).
    function _quote(Relayer.SwapRoute memory route, uint256 amountIn) internal returns (uint256) {
        if (route.router == address(v2Router)) {
            address[] memory tokens = new address[](route.path.length / 20);
            for (uint256 i; i < tokens.length; ++i) {
                bytes memory p = route.path;
                address t;
                assembly ("memory-safe") {
                    t := shr(96, mload(add(add(p, 0x20), mul(i, 20))))
                }
                tokens[i] = t;
            }
            uint256[] memory amounts = v2Router.getAmountsOut(amountIn, tokens);
            return amounts[amounts.length - 1];
        }
        (uint256 out,,,) = quoterV2.quoteExactInput(route.path, amountIn);
        return out;
    }

    function _assertRelayerEmpty(address router) internal view {
        assertEq(usdt.balanceOf(address(relayer)), 0, "relayer usdt");
        assertEq(dai.balanceOf(address(relayer)), 0, "relayer dai");
        assertEq(IERC20(weth).balanceOf(address(relayer)), 0, "relayer weth");
        assertEq(address(relayer).balance, 0, "relayer native");
        assertEq(usdt.allowance(address(relayer), router), 0, "allowance left");
    }

    /// @dev Signs and submits a swap of 1000 usdt (fee 5, so 995 swapped) at 0.5% slippage from the router's own
    /// quote; checks balances.
    function _swapAndCheck(Relayer.SwapRoute memory route, address buyToken, bytes32 nonce, string memory gasName)
        internal
        returns (uint256)
    {
        uint256 quoted = _quote(route, 995e18);
        Relayer.SwapAuthorization memory a = _bind(_auth(buyToken, 1000e18, (quoted * 9950) / 10000, nonce), route);
        bytes memory sig = _sign(payerKey, a);
        uint256 payerBefore = usdt.balanceOf(payer);
        uint256 recipientBefore = IERC20(buyToken).balanceOf(recipient);

        vm.expectEmit(address(relayer));
        emit Relayer.SwapExecuted(
            payer, nonce, recipient, address(usdt), buyToken, 1000e18, 5e18, quoted, _structHash(a)
        );
        vm.prank(submitter);
        uint256 bought = relayer.swapWithAuthorization(a, sig, route);
        if (bytes(gasName).length != 0) vm.snapshotGasLastCall("swap", gasName);

        assertEq(bought, quoted, "bought what the router quoted");
        assertGe(bought, a.minBuyAmount);
        assertEq(IERC20(buyToken).balanceOf(recipient) - recipientBefore, bought, "recipient got the output");
        assertEq(payerBefore - usdt.balanceOf(payer), a.sellAmount, "payer lost exactly sellAmount");
        assertEq(usdt.balanceOf(feeRecipient), a.fee, "fee paid");
        assertEq(IERC20(buyToken).balanceOf(payer), 0, "nothing to the payer");
        assertTrue(relayer.authorizationState(payer, nonce));
        _assertRelayerEmpty(route.router);
        return bought;
    }

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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, bytes32("replay")));
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, nonce));
        relayer.swapWithAuthorization(a, sig, _v2Route(_v2Path(address(usdt), address(dai))));

        // A swapped nonce is used for transfers too.
        a.nonce = "swapped";
        relayer.swapWithAuthorization(a, _sign(payerKey, a), _v2Route(_v2Path(address(usdt), address(dai))));
        assertTrue(relayer.authorizationState(payer, "swapped"));
        vm.expectRevert(abi.encodeWithSelector(Relayer.AuthorizationAlreadyUsed.selector, payer, bytes32("swapped")));
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
        vm.expectRevert(Relayer.InvalidSignature.selector);
        relayer.swapWithAuthorization(a, wrongSigner, route);

        bytes memory sig = _sign(payerKey, a);
        Relayer.SwapAuthorization memory lowerMinimum = _auth(address(dai), 1000e18, 1, "tamper");
        vm.expectRevert(Relayer.InvalidSignature.selector);
        relayer.swapWithAuthorization(lowerMinimum, sig, route);

        Relayer.SwapAuthorization memory otherRecipient = _auth(address(dai), 1000e18, 990e18, "tamper");
        otherRecipient.recipient = submitter;
        vm.expectRevert(Relayer.InvalidSignature.selector);
        relayer.swapWithAuthorization(otherRecipient, sig, route);

        Relayer.SwapAuthorization memory higherFee = _auth(address(dai), 1000e18, 990e18, "tamper");
        higherFee.fee = 100e18;
        vm.expectRevert(Relayer.InvalidSignature.selector);
        relayer.swapWithAuthorization(higherFee, sig, route);

        vm.expectRevert(Relayer.InvalidSignature.selector);
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
        vm.expectRevert(abi.encodeWithSelector(Relayer.TokenNotWhitelisted.selector, address(dai)));
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
