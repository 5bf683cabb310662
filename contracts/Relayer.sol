// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

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

/// @notice EIP-3009-style authorized transfers for any whitelisted ERC-20 the payer approved to this contract,
/// plus a batch entry point for smart wallets paying from their own balance; and the same two shapes for
/// exact-in swaps on a whitelisted DEX router, where the signature binds the route, the minimum output and the
/// recipient. Ownership moves in two steps (Ownable2Step): a mistyped new owner never gets it.
contract Relayer is EIP712, Ownable2Step, Pausable, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
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

    uint8 public constant STATUS_OK = 0;
    uint8 public constant STATUS_BAD_SIGNATURE = 1;
    uint8 public constant STATUS_NONCE_USED = 2;
    uint8 public constant STATUS_NOT_YET_VALID = 3;
    uint8 public constant STATUS_EXPIRED = 4;
    uint8 public constant STATUS_TOKEN_NOT_WHITELISTED = 5;
    uint8 public constant STATUS_PAUSED = 6;
    uint8 public constant STATUS_INSUFFICIENT_BALANCE = 7;
    uint8 public constant STATUS_INSUFFICIENT_ALLOWANCE = 8;

    /// @notice Gas given to a contract payer's ERC-1271 isValidSignature: the payer's code runs on the
    /// submitter's gas, so without a cap any wallet could make a facilitator pay for arbitrary computation.
    uint256 public erc1271GasLimit = DEFAULT_ERC1271_GAS_LIMIT;
    uint256 public constant DEFAULT_ERC1271_GAS_LIMIT = 100_000;

    /// @dev Per token, one word that answers both checks a payment needs, so it costs one storage read:
    /// TOKEN_WHITELISTED, TOKEN_PAUSED (a copy of `paused()`, written to every listed token by pause and unpause)
    /// and TOKEN_LISTED (the token is in `_tokens`, once).
    mapping(address token => uint256 flags) private _tokenFlags;
    /// @dev Every token ever whitelisted (delisted ones stay: pause must reach a token whitelisted again later).
    address[] private _tokens;
    uint256 private constant TOKEN_WHITELISTED = 1;
    uint256 private constant TOKEN_PAUSED = 2;
    uint256 private constant TOKEN_LISTED = 4;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;
    mapping(address router => uint8 kind) private _routerKinds;

    /// @notice Receives swap fees. A contract setting rather than an argument: whoever submits a signed swap
    /// cannot redirect the fee the payer agreed to pay the service.
    address public feeRecipient;

    /// @dev Carries what the authorization paid, so that whoever submitted it, a facilitator can tell its own
    /// authorization from a different one that reused the nonce.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce, address token, address to, uint256 value);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    event TokenWhitelistUpdated(address indexed token, bool allowed);
    event BatchPaid(address indexed payer, address indexed token, uint256 total);
    event Erc1271GasLimitUpdated(uint256 gasLimit);
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

    error TokenNotWhitelisted(address token);
    error AuthorizationNotYetValid();
    error AuthorizationExpired();
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    error InvalidSignature();
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

    constructor(string memory name, string memory version, address owner) EIP712(name, version) Ownable(owner) {
        feeRecipient = owner;
        emit Erc1271GasLimitUpdated(DEFAULT_ERC1271_GAS_LIMIT);
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

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes calldata signature) external {
        _useNonce(authorizer, nonce);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)));
        if (!_isValidSignature(authorizer, digest, signature)) revert InvalidSignature();

        emit AuthorizationCanceled(authorizer, nonce);
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

    function authorizationState(address from, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[from][nonce];
    }

    function isTokenWhitelisted(address token) external view returns (bool) {
        return _tokenFlags[token] & TOKEN_WHITELISTED != 0;
    }

    function setTokenWhitelisted(address token, bool allowed) external onlyOwner {
        if (_tokenFlags[token] & TOKEN_LISTED == 0) _tokens.push(token);
        _tokenFlags[token] =
            TOKEN_LISTED |
            (allowed ? TOKEN_WHITELISTED : 0) |
            (paused() ? TOKEN_PAUSED : 0);
        emit TokenWhitelistUpdated(token, allowed);
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

    function setErc1271GasLimit(uint256 gasLimit) external onlyOwner {
        erc1271GasLimit = gasLimit;
        emit Erc1271GasLimitUpdated(gasLimit);
    }

    /// @notice Stops every payment and swap. Costs the owner one write per token ever whitelisted: the flag is
    /// copied into each token's word so that a payment reads pause and whitelist in one storage read.
    function pause() external onlyOwner {
        _pause();
        _setTokensPaused(TOKEN_PAUSED);
    }

    function unpause() external onlyOwner {
        _unpause();
        _setTokensPaused(0);
    }

    function _setTokensPaused(uint256 pausedFlag) private {
        uint256 count = _tokens.length;
        for (uint256 i; i < count; ++i) {
            address token = _tokens[i];
            _tokenFlags[token] = (_tokenFlags[token] & ~TOKEN_PAUSED) | pausedFlag;
        }
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

    /// @dev The pause and whitelist checks in one storage read. A refusal names the pause first, as the
    /// `whenNotPaused` modifier did before the whitelist check.
    function _requireOpen(address token) private view {
        if (_tokenFlags[token] & (TOKEN_WHITELISTED | TOKEN_PAUSED) != TOKEN_WHITELISTED) {
            _requireNotPaused();
            revert TokenNotWhitelisted(token);
        }
    }

    /// @dev Marks the nonce used, or reverts if it already was: one slot computation for the read and the write.
    /// It happens before the signature check, whose failure reverts it with everything else; a contract payer's
    /// ERC-1271 code, called after it, already sees the nonce used (checks, effects, then interactions).
    function _useNonce(address authorizer, bytes32 nonce) private {
        bool used;
        assembly ("memory-safe") {
            // _authorizationStates[authorizer][nonce]: the slot computed once for the read and the write
            mstore(0x00, authorizer)
            mstore(0x20, _authorizationStates.slot)
            mstore(0x20, keccak256(0x00, 0x40))
            mstore(0x00, nonce)
            let slot := keccak256(0x00, 0x40)
            used := sload(slot)
            if iszero(used) {
                sstore(slot, 1) // `true` as Solidity stores a bool
            }
        }
        if (used) revert AuthorizationAlreadyUsed(authorizer, nonce);
    }

    /// @dev ECDSA first: a 65-byte signature that recovers to `signer` is valid, without reading the signer's code
    /// (a cold account access, 2,600 gas, on every payment). Only the private key of `signer` itself recovers to it:
    /// an EOA's, or an EIP-7702 account's own key, which controls that account whatever its code says; a contract's
    /// address has no key. Otherwise, for a contract, ERC-1271 with at most `erc1271GasLimit` gas and only 32 bytes
    /// of return data copied (a large answer cannot make the caller pay for memory either).
    function _isValidSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == signer) return true;
        if (signer.code.length == 0) return false;
        bytes memory data = abi.encodeCall(IERC1271.isValidSignature, (digest, signature));
        uint256 gasLimit = erc1271GasLimit;
        bytes4 magic = IERC1271.isValidSignature.selector;
        bool valid;
        assembly ("memory-safe") {
            mstore(0x00, 0)
            let ok := staticcall(gasLimit, signer, add(data, 0x20), mload(data), 0x00, 0x20)
            valid := and(ok, and(gt(returndatasize(), 0x1f), eq(mload(0x00), magic)))
        }
        return valid;
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

    /// @dev A failing call, short return data or missing code reads as 0.
    function _readUint(address token, bytes memory data) private view returns (uint256 result) {
        (bool ok, bytes memory ret) = token.staticcall(data);
        if (ok && ret.length >= 32) result = abi.decode(ret, (uint256));
    }
}
