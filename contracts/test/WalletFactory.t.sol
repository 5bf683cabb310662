// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test, Vm} from "forge-std/Test.sol";
import {WalletFactory} from "../WalletFactory.sol";
import {Account as SmartAccount} from "../Account.sol";

contract WalletFactoryTest is Test {
    WalletFactory internal factory;

    function setUp() public {
        factory = new WalletFactory();
    }

    function testFuzz_getAddressMatchesCreateAccount(address owner, bytes32 salt) public {
        vm.assume(owner != address(0));
        address predicted = factory.getAddress(owner, salt);
        vm.expectEmit(address(factory));
        emit WalletFactory.AccountCreated(predicted, owner, salt);
        address account = factory.createAccount(owner, salt);
        assertEq(account, predicted);
        assertGt(account.code.length, 0);
        assertEq(SmartAccount(payable(account)).owner(), owner);
    }

    function test_secondCreateReturnsSameAddressWithoutEvent() public {
        address owner = makeAddr("owner");
        address first = factory.createAccount(owner, bytes32(0));
        vm.recordLogs();
        address second = factory.createAccount(owner, bytes32(0));
        assertEq(second, first);
        assertEq(vm.getRecordedLogs().length, 0);
    }

    function testFuzz_differentOwnersSameSaltDiffer(address a, address b, bytes32 salt) public {
        vm.assume(a != b && a != address(0) && b != address(0));
        assertTrue(factory.getAddress(a, salt) != factory.getAddress(b, salt));
        assertTrue(factory.createAccount(a, salt) != factory.createAccount(b, salt));
    }

    function test_frontRunStillOwnedByOwner() public {
        address owner = makeAddr("owner");
        address attacker = makeAddr("attacker");
        bytes32 salt = keccak256("checkout-1");
        vm.prank(attacker);
        address account = factory.createAccount(owner, salt);
        assertEq(SmartAccount(payable(account)).owner(), owner);
        // the owner's own (retried) call lands on the same wallet
        vm.prank(owner);
        assertEq(factory.createAccount(owner, salt), account);
        // the attacker cannot obtain the owner's address for itself
        assertTrue(factory.getAddress(attacker, salt) != account);
    }

    function test_zeroOwnerRejected() public {
        vm.expectRevert(SmartAccount.InvalidOwner.selector);
        factory.createAccount(address(0), bytes32(0));
    }

    function test_implementationIsAnAccount() public view {
        address impl = factory.accountImplementation();
        assertGt(impl.code.length, 0);
        assertEq(SmartAccount(payable(impl)).owner(), address(0));
    }

    function test_fundedBeforeDeploymentKeepsBalance() public {
        address owner = makeAddr("owner");
        address predicted = factory.getAddress(owner, bytes32(0));
        vm.deal(predicted, 1 ether);
        factory.createAccount(owner, bytes32(0));
        assertEq(predicted.balance, 1 ether);
    }
}
