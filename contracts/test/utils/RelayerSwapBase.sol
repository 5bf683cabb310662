// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {UniswapFixture, IWETH9, ISwapRouter02} from "./UniswapFixture.sol";
import {Relayer} from "../../Relayer.sol";
import {TestUSDT} from "../../test-tokens/TestUSDT.sol";
import {TestDAI} from "../../test-tokens/TestDAI.sol";

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

/// The relayer swap tests' world: Uniswap V2/V3 from their npm artifacts with usdt/dai/weth pools, a relayer that
/// whitelists both routers, a payer holding usdt, and the helpers that sign and check a swap.
abstract contract RelayerSwapBase is UniswapFixture {
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
}
