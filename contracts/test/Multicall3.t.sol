// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {Multicall3} from "../devnet/Multicall3.sol";

contract Callee {
    function echo(uint256 x) external payable returns (uint256) {
        return x;
    }

    function fail() external pure {
        revert("nope");
    }
}

contract Multicall3Test is Test {
    Multicall3 internal multicall;
    Callee internal callee;

    function setUp() public {
        multicall = new Multicall3();
        callee = new Callee();
    }

    function test_aggregate3AllowsFailuresPerCall() public {
        Multicall3.Call3[] memory calls = new Multicall3.Call3[](2);
        calls[0] = Multicall3.Call3(address(callee), false, abi.encodeCall(Callee.echo, (42)));
        calls[1] = Multicall3.Call3(address(callee), true, abi.encodeCall(Callee.fail, ()));
        Multicall3.Result[] memory results = multicall.aggregate3(calls);
        assertTrue(results[0].success);
        assertEq(abi.decode(results[0].returnData, (uint256)), 42);
        assertFalse(results[1].success);

        calls[1].allowFailure = false;
        vm.expectRevert("Multicall3: call failed");
        multicall.aggregate3(calls);
    }

    function test_aggregate3ValueRequiresExactValue() public {
        Multicall3.Call3Value[] memory calls = new Multicall3.Call3Value[](1);
        calls[0] = Multicall3.Call3Value(address(callee), false, 1 ether, abi.encodeCall(Callee.echo, (1)));
        multicall.aggregate3Value{value: 1 ether}(calls);
        assertEq(address(callee).balance, 1 ether);
        vm.expectRevert("Multicall3: value mismatch");
        multicall.aggregate3Value{value: 2 ether}(calls);
    }

    function test_aggregateAndTryAggregate() public {
        Multicall3.Call[] memory calls = new Multicall3.Call[](1);
        calls[0] = Multicall3.Call(address(callee), abi.encodeCall(Callee.echo, (7)));
        (uint256 blockNumber, bytes[] memory ret) = multicall.aggregate(calls);
        assertEq(blockNumber, block.number);
        assertEq(abi.decode(ret[0], (uint256)), 7);

        calls[0] = Multicall3.Call(address(callee), abi.encodeCall(Callee.fail, ()));
        Multicall3.Result[] memory results = multicall.tryAggregate(false, calls);
        assertFalse(results[0].success);
        vm.expectRevert("Multicall3: call failed");
        multicall.tryAggregate(true, calls);
    }

    function test_getters() public {
        vm.deal(address(0xBEEF), 3 ether);
        assertEq(multicall.getEthBalance(address(0xBEEF)), 3 ether);
        assertEq(multicall.getCurrentBlockTimestamp(), block.timestamp);
        assertEq(multicall.getBlockNumber(), block.number);
        assertEq(multicall.getChainId(), block.chainid);
    }
}
