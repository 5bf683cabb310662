// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IV2Router, IV3Router} from "./relayer/DexRouters.sol";
import {RelayerAuthorizations} from "./relayer/RelayerAuthorizations.sol";

/// @notice EIP-3009-style authorized transfers for any whitelisted ERC-20 the payer approved to this contract,
/// plus a batch entry point for smart wallets paying from their own balance; and the same two shapes for
/// exact-in swaps on a whitelisted DEX router, where the signature binds the route, the minimum output and the
/// recipient. Ownership moves in two steps (Ownable2Step): a mistyped new owner never gets it.
contract Relayer is RelayerAuthorizations {
    using SafeERC20 for IERC20;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant SWAP_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "SwapWithAuthorization(address from,address sellToken,address buyToken,uint256 sellAmount,uint256 minBuyAmount,address recipient,uint256 fee,address router,bytes32 routeHash,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );

    /// @notice Router kinds: which call the relayer builds for a whitelisted router (0 = not whitelisted).
    uint8 public constant ROUTER_V2 = 1; // swapExactTokensForTokens(amountIn, min, path, to, deadline)
    uint8 public constant ROUTER_V3 = 2; // exactInput({path, recipient, amountIn, amountOutMinimum})

    /// @notice Field order and types are the EIP-712 struct's, so its hash is keccak256(abi.encode(TYPEHASH, auth)).
    /// `router` and `routeHash` = keccak256(SwapRoute.path) bind the route: whoever submits the signature cannot
    /// trade it through another path or router (a pool of their own, down to minBuyAmount).
    struct SwapAuthorization {
        address from;
        address sellToken;
        address buyToken;
        uint256 sellAmount;
        uint256 minBuyAmount;
        address recipient;
        uint256 fee;
        address router;
        bytes32 routeHash;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    /// @notice A smart wallet's swap (swapBatch): what the authorization says, minus who and when.
    struct SwapOrder {
        address sellToken;
        address buyToken;
        uint256 sellAmount;
        uint256 minBuyAmount;
        address recipient;
        uint256 fee;
    }

    /// @notice Where to swap. `path` is packed: V2 = token addresses (20 bytes each), V3 = token, fee (3 bytes),
    /// token, ... as the V3 routers take it. It must start at the sell token and end at the buy token; the
    /// call itself is built here from the router's whitelisted kind, never taken from the caller.
    struct SwapRoute {
        address router;
        bytes path;
    }

    /// @notice An EIP-2612 permit of the payer to this contract, submitted with a transfer authorization.
    struct PermitSignature {
        uint256 value;
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    mapping(address router => uint8 kind) private _routerKinds;

    /// @notice Receives swap fees. A contract setting rather than an argument: whoever submits a signed swap
    /// cannot redirect the fee the payer agreed to pay the service.
    address public feeRecipient;

    event BatchPaid(address indexed payer, address indexed token, uint256 total);
    /// @dev `nonce` and `authorizationHash` (the EIP-712 struct hash of the SwapAuthorization executed, so a
    /// facilitator can tell whether a used nonce carried exactly what it signed) are zero for a wallet's swapBatch.
    event SwapExecuted(
        address indexed payer,
        bytes32 indexed nonce,
        address indexed recipient,
        address sellToken,
        address buyToken,
        uint256 sellAmount,
        uint256 fee,
        uint256 buyAmount,
        bytes32 authorizationHash
    );
    event RouterUpdated(address indexed router, uint8 kind);
    event FeeRecipientUpdated(address feeRecipient);

    error AuthorizationNotYetValid();
    error AuthorizationExpired();
    error LengthMismatch();
    error EmptyBatch();
    error RouterNotWhitelisted(address router);
    error InvalidRouterKind(uint8 kind);
    error InvalidSwapPath();
    error InvalidSwap();
    error InsufficientOutput(uint256 received, uint256 minimum);
    error InvalidFeeRecipient();
    error RouteNotSigned();
    error PermitValueTooLow(uint256 permitValue, uint256 value);
    error PermitFailed();

    constructor(
        string memory name,
        string memory version,
        address owner
    ) RelayerAuthorizations(name, version, owner) {
        feeRecipient = owner;
        emit FeeRecipientUpdated(owner);
    }

    function transferWithAuthorization(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        _authorizeTransfer(token, from, validAfter, validBefore, nonce, signature);
        emit AuthorizationUsed(from, nonce, token, to, value);
        IERC20(token).safeTransferFrom(from, to, value);
    }

    /// @notice transferWithAuthorization for a payer who has not approved this contract yet, on a token with
    /// EIP-2612: the payer's permit to this contract, then the authorization, in one transaction. The permit
    /// only grants the allowance; the transfer moves exactly the signed `value`. A permit already used (someone
    /// submitted it first) is not an error as long as the allowance it granted is there.
    function transferWithAuthorizationWithPermit(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature,
        PermitSignature calldata permit
    ) external {
        _authorizeTransfer(token, from, validAfter, validBefore, nonce, signature);
        if (permit.value < value) revert PermitValueTooLow(permit.value, value);
        try IERC20Permit(token).permit(from, address(this), permit.value, permit.deadline, permit.v, permit.r, permit.s) {
        } catch {
            if (IERC20(token).allowance(from, address(this)) < value) revert PermitFailed();
        }
        emit AuthorizationUsed(from, nonce, token, to, value);
        IERC20(token).safeTransferFrom(from, to, value);
    }

    /// @notice Smart-wallet payment: moves funds from msg.sender only (the fee is just another pair).
    function payBatch(
        address token,
        address[] calldata recipients,
        uint256[] calldata amounts
    ) external {
        _requireOpen(token);
        if (recipients.length != amounts.length) revert LengthMismatch();
        if (recipients.length == 0) revert EmptyBatch();

        uint256 total;
        for (uint256 i; i < recipients.length; ++i) {
            total += amounts[i];
            IERC20(token).safeTransferFrom(msg.sender, recipients[i], amounts[i]);
        }
        emit BatchPaid(msg.sender, token, total);
    }

    /// @notice Sells exactly `auth.sellAmount` of the payer's (approved) sell token: `fee` to `feeRecipient`, the
    /// rest through `route`; reverts unless `auth.recipient`'s buy-token balance rose by at least
    /// `minBuyAmount`. Shares the nonce space of transferWithAuthorization (`authorizationState`).
    /// @return buyAmount what the recipient received (an eth_call of this is the service's quote check).
    function swapWithAuthorization(
        SwapAuthorization calldata auth,
        bytes calldata signature,
        SwapRoute calldata route
    ) external nonReentrant returns (uint256 buyAmount) {
        _requireOpen(auth.sellToken);
        if (block.timestamp < auth.validAfter) revert AuthorizationNotYetValid();
        if (block.timestamp > auth.validBefore) revert AuthorizationExpired();
        if (route.router != auth.router || keccak256(route.path) != auth.routeHash) revert RouteNotSigned();
        _useNonce(auth.from, auth.nonce);
        bytes32 structHash = keccak256(abi.encode(SWAP_WITH_AUTHORIZATION_TYPEHASH, auth));
        if (!_isValidSignature(auth.from, _hashTypedDataV4(structHash), signature)) revert InvalidSignature();

        buyAmount = _swap(
            auth.from,
            SwapOrder(auth.sellToken, auth.buyToken, auth.sellAmount, auth.minBuyAmount, auth.recipient, auth.fee),
            auth.validBefore,
            route
        );
        emit SwapExecuted(
            auth.from,
            auth.nonce,
            auth.recipient,
            auth.sellToken,
            auth.buyToken,
            auth.sellAmount,
            auth.fee,
            buyAmount,
            structHash
        );
    }

    /// @notice Smart-wallet swap, the counterpart of payBatch inside a wallet's batched UserOp: the same checks
    /// and swap as swapWithAuthorization, paid by msg.sender (which approved `sellAmount` to this contract).
    function swapBatch(
        SwapOrder calldata order,
        SwapRoute calldata route
    ) external nonReentrant returns (uint256 buyAmount) {
        _requireOpen(order.sellToken);
        buyAmount = _swap(msg.sender, order, block.timestamp, route);
        emit SwapExecuted(
            msg.sender,
            bytes32(0),
            order.recipient,
            order.sellToken,
            order.buyToken,
            order.sellAmount,
            order.fee,
            buyAmount,
            bytes32(0)
        );
    }

    /// @notice Everything a facilitator's /verify needs in one eth_call; returns the first failing check.
    /// Never reverts on malformed signatures or misbehaving tokens.
    function checkAuthorization(
        address token,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external view returns (uint8 status, uint256 balance, uint256 allowance) {
        uint256 flags = _tokenFlags[token];
        bool whitelisted = flags & TOKEN_WHITELISTED != 0;
        if (whitelisted) {
            balance = _readUint(token, abi.encodeCall(IERC20.balanceOf, (from)));
            allowance = _readUint(token, abi.encodeCall(IERC20.allowance, (from, address(this))));
        }

        bytes32 digest = _transferDigestFromCalldata();
        if (!_isValidSignature(from, digest, signature)) status = STATUS_BAD_SIGNATURE;
        else if (_authorizationStates[from][nonce]) status = STATUS_NONCE_USED;
        else if (block.timestamp < validAfter) status = STATUS_NOT_YET_VALID;
        else if (block.timestamp > validBefore) status = STATUS_EXPIRED;
        else if (!whitelisted) status = STATUS_TOKEN_NOT_WHITELISTED;
        else if (flags & TOKEN_PAUSED != 0) status = STATUS_PAUSED;
        else if (balance < value) status = STATUS_INSUFFICIENT_BALANCE;
        else if (allowance < value) status = STATUS_INSUFFICIENT_ALLOWANCE;
        else status = STATUS_OK;
    }




    function routerKind(address router) external view returns (uint8) {
        return _routerKinds[router];
    }

    /// @notice Whitelists `router` for the call of `kind` (ROUTER_V2 or ROUTER_V3); 0 removes it.
    function setRouter(address router, uint8 kind) external onlyOwner {
        if (kind > ROUTER_V3) revert InvalidRouterKind(kind);
        _routerKinds[router] = kind;
        emit RouterUpdated(router, kind);
    }

    function setFeeRecipient(address recipient) external onlyOwner {
        if (recipient == address(0)) revert InvalidFeeRecipient();
        feeRecipient = recipient;
        emit FeeRecipientUpdated(recipient);
    }





    /// @dev The struct hash straight from calldata: the first seven arguments of transferWithAuthorization (and
    /// its permit variant) and checkAuthorization are the struct's fields in its order, one ABI word each (the ABI decoder has already
    /// refused an address with dirty upper bits), so they are hashed in place instead of copied field by field.
    function _transferDigestFromCalldata() private view returns (bytes32) {
        bytes32 typehash = TRANSFER_WITH_AUTHORIZATION_TYPEHASH;
        bytes32 structHash;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typehash)
            calldatacopy(add(m, 0x20), 0x04, 0xe0)
            structHash := keccak256(m, 0x100)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @dev Everything a transfer authorization checks before it moves funds: the token open, the window, the
    /// nonce (then used) and the payer's signature of the struct in calldata.
    function _authorizeTransfer(
        address token,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) private {
        _requireOpen(token);
        if (block.timestamp < validAfter) revert AuthorizationNotYetValid();
        if (block.timestamp > validBefore) revert AuthorizationExpired();
        _useNonce(from, nonce);
        if (!_isValidSignature(from, _transferDigestFromCalldata(), signature)) revert InvalidSignature();
    }




    /// @dev Pull, fee, exact approval, the router call built here, approval reset, then the output measured at
    /// the recipient (also right for fee-on-transfer buy tokens, whose router-side minimum is not enough).
    function _swap(
        address payer,
        SwapOrder memory order,
        uint256 deadline,
        SwapRoute calldata route
    ) private returns (uint256 received) {
        uint8 kind = _routerKinds[route.router];
        if (kind == 0) revert RouterNotWhitelisted(route.router);
        _checkPath(kind, route.path, order.sellToken, order.buyToken);
        // The recipient's balance is what the signature protects; this contract must end with nothing.
        if (
            order.fee >= order.sellAmount ||
            order.sellToken == order.buyToken ||
            order.recipient == address(0) ||
            order.recipient == address(this)
        ) revert InvalidSwap();

        IERC20 sellToken = IERC20(order.sellToken);
        uint256 amountIn = order.sellAmount - order.fee;
        sellToken.safeTransferFrom(payer, address(this), order.sellAmount);
        if (order.fee != 0) sellToken.safeTransfer(feeRecipient, order.fee);
        sellToken.forceApprove(route.router, amountIn);

        uint256 balanceBefore = IERC20(order.buyToken).balanceOf(order.recipient);
        if (kind == ROUTER_V2) {
            IV2Router(route.router).swapExactTokensForTokens(
                amountIn,
                order.minBuyAmount,
                _v2Path(route.path),
                order.recipient,
                deadline
            );
        } else {
            IV3Router(route.router).exactInput(
                IV3Router.ExactInputParams(route.path, order.recipient, amountIn, order.minBuyAmount)
            );
        }
        uint256 balanceAfter = IERC20(order.buyToken).balanceOf(order.recipient);

        sellToken.forceApprove(route.router, 0);
        received = balanceAfter > balanceBefore ? balanceAfter - balanceBefore : 0;
        if (received < order.minBuyAmount) revert InsufficientOutput(received, order.minBuyAmount);
    }

    /// @dev V2: 20-byte addresses, at least two. V3: address (fee address)+, each step 23 bytes.
    function _checkPath(uint8 kind, bytes calldata path, address sellToken, address buyToken) private pure {
        uint256 length = path.length;
        bool shaped = kind == ROUTER_V2
            ? length >= 40 && length % 20 == 0
            : length >= 43 && (length - 20) % 23 == 0;
        if (!shaped || address(bytes20(path[:20])) != sellToken || address(bytes20(path[length - 20:])) != buyToken)
            revert InvalidSwapPath();
    }

    function _v2Path(bytes calldata path) private pure returns (address[] memory tokens) {
        tokens = new address[](path.length / 20);
        for (uint256 i; i < tokens.length; ++i) tokens[i] = address(bytes20(path[i * 20:i * 20 + 20]));
    }

}
