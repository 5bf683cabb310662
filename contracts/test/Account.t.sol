// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "forge-std/Test.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {Execution} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {Account as OZAccount} from "@openzeppelin/contracts/account/Account.sol";
import {AATestBase} from "./utils/AATestBase.sol";
import {Account as SmartAccount} from "../Account.sol";

contract Target {
    uint256 public counter;
    uint256 public received;

    function bump(uint256 by) external payable {
        counter += by;
        received += msg.value;
    }
}

contract AccountTest is AATestBase {
    address internal owner;
    uint256 internal ownerKey;
    SmartAccount internal account;
    Target internal target;

    function setUp() public override {
        super.setUp();
        (owner, ownerKey) = makeAddrAndKey("owner");
        account = SmartAccount(payable(factory.createAccount(owner, bytes32(0))));
        vm.deal(address(account), 1 ether);
        target = new Target();
    }

    function _bumpBatch() internal view returns (bytes memory) {
        Execution[] memory calls = new Execution[](2);
        calls[0] = Execution(address(target), 0, abi.encodeCall(Target.bump, (1)));
        calls[1] = Execution(address(target), 0.1 ether, abi.encodeCall(Target.bump, (2)));
        return _batch(calls);
    }

    function test_entryPointIsV07() public view {
        assertEq(address(account.entryPoint()), ENTRYPOINT_V07);
        assertEq(account.owner(), owner);
    }

    function test_rawHashSignatureExecutesBatch() public {
        _handle(_signUserOpRaw(_userOp(address(account), _bumpBatch()), ownerKey));
        assertEq(target.counter(), 3);
        assertEq(target.received(), 0.1 ether);
        assertEq(entryPoint.getNonce(address(account), 0), 1);
    }

    function test_eip191SignatureExecutesBatch() public {
        _handle(_signUserOp191(_userOp(address(account), _bumpBatch()), ownerKey));
        assertEq(target.counter(), 3);
    }

    function test_wrongSignerFailsValidation() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        PackedUserOperation memory op = _signUserOpRaw(_userOp(address(account), _bumpBatch()), otherKey);
        vm.expectRevert(_failedOp("AA24 signature error"));
        _handle(op);
    }

    function test_validateUserOpReturnsFailureInsteadOfReverting() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        PackedUserOperation memory op = _signUserOpRaw(_userOp(address(account), _bumpBatch()), otherKey);
        bytes32 hash = entryPoint.getUserOpHash(op);
        vm.prank(ENTRYPOINT_V07);
        (bool ok, bytes memory ret) = address(account).call(
            abi.encodeWithSignature(
                "validateUserOp((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes),bytes32,uint256)",
                op,
                hash,
                0
            )
        );
        assertTrue(ok);
        assertEq(abi.decode(ret, (uint256)), 1); // SIG_VALIDATION_FAILED
    }

    function test_garbageSignatureFailsValidation() public {
        PackedUserOperation memory op = _userOp(address(account), _bumpBatch());
        op.signature = hex"deadbeef";
        vm.expectRevert(_failedOp("AA24 signature error"));
        _handle(op);
    }

    function test_deploysThroughInitCode() public {
        (address newOwner, uint256 newKey) = makeAddrAndKey("fresh");
        address predicted = factory.getAddress(newOwner, bytes32(uint256(7)));
        vm.deal(predicted, 1 ether);
        PackedUserOperation memory op = _userOp(predicted, _batch(_call(address(target), 0, abi.encodeCall(Target.bump, (5)))));
        op = _signUserOp191(_withInitCode(op, newOwner, bytes32(uint256(7))), newKey);
        _handle(op);
        assertEq(SmartAccount(payable(predicted)).owner(), newOwner);
        assertEq(target.counter(), 5);
    }

    function test_initializeOnlyOnce() public {
        vm.expectRevert(Initializable.InvalidInitialization.selector);
        account.initialize(makeAddr("attacker"));
    }

    function test_implementationCannotBeInitialized() public {
        SmartAccount impl = SmartAccount(payable(factory.accountImplementation()));
        vm.expectRevert(Initializable.InvalidInitialization.selector);
        impl.initialize(makeAddr("attacker"));
    }

    function test_nonEntryPointCannotExecute() public {
        bytes memory data = abi.encode(_call(address(target), 0, abi.encodeCall(Target.bump, (1))));
        vm.expectRevert(abi.encodeWithSelector(OZAccount.AccountUnauthorized.selector, owner));
        vm.prank(owner);
        account.execute(MODE_BATCH, data);
    }

    function test_nonEntryPointCannotValidate() public {
        PackedUserOperation memory op = _userOp(address(account), "");
        vm.prank(owner);
        (bool ok, ) = address(account).call(
            abi.encodeWithSignature(
                "validateUserOp((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes),bytes32,uint256)",
                op,
                bytes32(0),
                0
            )
        );
        assertFalse(ok);
    }

    function test_receivesNativeTokens() public {
        (bool ok, ) = address(account).call{value: 1 ether}("");
        assertTrue(ok);
        assertEq(address(account).balance, 2 ether);
    }

    function testFuzz_randomSignerNeverValidates(uint256 key) public {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        vm.assume(vm.addr(key) != owner);
        PackedUserOperation memory op = _signUserOpRaw(_userOp(address(account), _bumpBatch()), key);
        vm.expectRevert(_failedOp("AA24 signature error"));
        _handle(op);
    }

    function test_batchRevertsAtomically() public {
        Execution[] memory calls = new Execution[](2);
        calls[0] = Execution(address(target), 0, abi.encodeCall(Target.bump, (1)));
        calls[1] = Execution(address(target), 5 ether, abi.encodeCall(Target.bump, (2))); // more than the balance
        vm.recordLogs();
        _handle(_signUserOpRaw(_userOp(address(account), _batch(calls)), ownerKey));
        (bool success, ) = _userOpResult(vm.getRecordedLogs());
        assertFalse(success);
        assertEq(target.counter(), 0);
    }
}
