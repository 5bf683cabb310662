// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

/// @title relay402's facilitator address for x402's `upto` scheme
/// @notice x402's upto proxy (x402UptoPermit2Proxy) settles a payer's signed maximum only when it is called by the
/// address the payer's witness names as its facilitator, and that caller chooses the amount (up to the maximum).
/// relay402 advertises this contract as that address, so that any of its executors, on any instance, may settle:
/// it forwards `settle` and `settleWithPermit` to the proxy, calldata unchanged, for the executors its owner allows,
/// and for nobody else. A stranger holding a payer's signature can settle nothing: the proxy refuses it as a caller,
/// and this contract refuses it too. Ownership moves in two steps (Ownable2Step).
contract UptoForwarder is Ownable2Step {
    /// @notice x402's upto proxy, at its canonical address on every chain.
    address public immutable proxy;

    /// @notice The executors that may settle through this contract.
    mapping(address executor => bool) public isExecutor;

    /// @dev The proxy's two settling functions, by their ABI signatures (x402UptoPermit2Proxy.sol, x402@dd927a26).
    bytes4 private constant SETTLE = bytes4(
        keccak256("settle(((address,uint256),uint256,uint256),uint256,address,(address,address,uint256),bytes)")
    );
    bytes4 private constant SETTLE_WITH_PERMIT = bytes4(
        keccak256(
            "settleWithPermit((uint256,uint256,bytes32,bytes32,uint8),((address,uint256),uint256,uint256),uint256,address,(address,address,uint256),bytes)"
        )
    );

    event ExecutorSet(address indexed executor, bool allowed);

    error NotExecutor(address caller);
    error NotASettle(bytes4 selector);
    error ProxyHasNoCode();

    constructor(address proxy_, address owner_) Ownable(owner_) {
        if (proxy_.code.length == 0) revert ProxyHasNoCode();
        proxy = proxy_;
    }

    /// @notice Allows or disallows executors (a key rotation adds the new keys before the old ones are removed).
    function setExecutors(address[] calldata executors, bool allowed) external onlyOwner {
        for (uint256 i = 0; i < executors.length; i++) {
            isExecutor[executors[i]] = allowed;
            emit ExecutorSet(executors[i], allowed);
        }
    }

    /// @notice Forwards the proxy's `settle` or `settleWithPermit` from an allowed executor; the proxy's revert, if
    /// any, is this call's.
    fallback() external {
        if (!isExecutor[msg.sender]) revert NotExecutor(msg.sender);
        if (msg.sig != SETTLE && msg.sig != SETTLE_WITH_PERMIT) revert NotASettle(msg.sig);
        (bool ok, bytes memory result) = proxy.call(msg.data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 32), mload(result))
            }
        }
    }
}
