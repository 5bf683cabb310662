// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Account} from "./Account.sol";

/// @notice Deploys owner-bound `Account` clones at CREATE2 addresses derived from (owner, salt).
contract WalletFactory {
    address public immutable accountImplementation;

    event AccountCreated(address indexed account, address indexed owner, bytes32 salt);

    constructor() {
        accountImplementation = address(new Account());
    }

    /// @notice Idempotent: returns the existing account if already deployed, so retries and
    /// EntryPoint initCode replays are safe. Anyone may call; the owner is bound into the address.
    function createAccount(address owner, bytes32 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length > 0) return account;

        Clones.cloneDeterministic(accountImplementation, _cloneSalt(owner, salt));
        Account(payable(account)).initialize(owner);
        emit AccountCreated(account, owner, salt);
    }

    function getAddress(address owner, bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddress(accountImplementation, _cloneSalt(owner, salt));
    }

    function _cloneSalt(address owner, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(owner, salt));
    }
}
