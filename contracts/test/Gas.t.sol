// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Vm} from "forge-std/Test.sol";
import {console} from "forge-std/console.sol";
import {PackedUserOperation} from "@account-abstraction/contracts/interfaces/PackedUserOperation.sol";
import {Execution} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {AATestBase} from "./utils/AATestBase.sol";
import {Relayer} from "../Relayer.sol";
import {Paymaster} from "../Paymaster.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";
import {TestUSDC} from "../test-tokens/TestUSDC.sol";

/// @dev End-to-end payment flows whose gas is recorded in snapshots/ (vm.snapshotGas*) and .gas-snapshot.
contract GasTest is AATestBase {
    Relayer internal relayer;
    Paymaster internal paymaster;
    TestUSDT internal usdt;
    TestUSDC internal usdc;
    address internal payer;
    uint256 internal payerKey;
    uint256 internal pmSignerKey;
    address internal merchant = makeAddr("merchant");
    address internal feeRecipient = makeAddr("feeRecipient");

    function setUp() public override {
        super.setUp();
        vm.warp(1_700_000_000);
        (payer, payerKey) = makeAddrAndKey("payer");
        address pmSigner;
        (pmSigner, pmSignerKey) = makeAddrAndKey("pmSigner");
        relayer = new Relayer("relay402", "1", address(this));
        paymaster = new Paymaster(entryPoint, pmSigner, address(this));
        paymaster.deposit{value: 1 ether}();
        usdt = new TestUSDT();
        usdc = new TestUSDC();
        relayer.setTokenWhitelisted(address(usdt), true);
        relayer.setTokenWhitelisted(address(usdc), true);
        usdt.mint(payer, 1_000e18);
        usdc.mint(payer, 1_000e6);
        // non-zero recipient balances so the measurement reflects a steady-state (warm-ish) payment
        usdt.mint(merchant, 1);
        usdt.mint(feeRecipient, 1);
        usdc.mint(merchant, 1);
        vm.startPrank(payer);
        usdt.approve(address(relayer), type(uint256).max);
        usdc.approve(address(relayer), type(uint256).max);
        vm.stopPrank();
    }

    function _relayerSig(address token, uint256 value, bytes32 nonce) internal view returns (bytes memory) {
        (, string memory name, string memory version, uint256 chainId, address verifying, , ) = relayer.eip712Domain();
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                chainId,
                verifying
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(relayer.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), token, payer, merchant, value, 0, block.timestamp + 60, nonce)
        );
        return _sign(payerKey, MessageHashUtils.toTypedDataHash(domain, structHash));
    }

    function test_gas_relayerTransferWithAuthorization_USDT() public {
        bytes memory sig = _relayerSig(address(usdt), 1e18, keccak256("gas"));
        relayer.transferWithAuthorization(address(usdt), payer, merchant, 1e18, 0, block.timestamp + 60, keccak256("gas"), sig);
        uint256 gasUsed = vm.snapshotGasLastCall("relayer", "transferWithAuthorization_USDT");
        console.log("relayer.transferWithAuthorization (USDT) gas:", gasUsed);
        assertEq(usdt.balanceOf(merchant), 1e18 + 1);
    }

    function test_gas_relayerTransferWithAuthorization_USDC() public {
        bytes memory sig = _relayerSig(address(usdc), 1e6, keccak256("gas"));
        relayer.transferWithAuthorization(address(usdc), payer, merchant, 1e6, 0, block.timestamp + 60, keccak256("gas"), sig);
        uint256 gasUsed = vm.snapshotGasLastCall("relayer", "transferWithAuthorization_USDC");
        console.log("relayer.transferWithAuthorization (USDC) gas:", gasUsed);
        assertEq(usdc.balanceOf(merchant), 1e6 + 1);
    }

    function test_gas_usdcNativeTransferWithAuthorization() public {
        bytes32 nonce = keccak256("native");
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(usdc)
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(
                    "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
                ),
                payer,
                merchant,
                1e6,
                0,
                block.timestamp + 60,
                nonce
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(payerKey, MessageHashUtils.toTypedDataHash(domain, structHash));
        usdc.transferWithAuthorization(payer, merchant, 1e6, 0, block.timestamp + 60, nonce, v, r, s);
        uint256 gasUsed = vm.snapshotGasLastCall("usdc", "transferWithAuthorization_native");
        console.log("TestUSDC.transferWithAuthorization gas:", gasUsed);
        assertEq(usdc.balanceOf(merchant), 1e6 + 1);
    }

    function test_gas_createAccount() public {
        factory.createAccount(makeAddr("owner"), bytes32(0));
        uint256 gasUsed = vm.snapshotGasLastCall("factory", "createAccount");
        console.log("WalletFactory.createAccount gas:", gasUsed);
    }

    /// @dev approve(relayer) + payBatch([merchant, fee]) from a smart wallet, sponsored by the paymaster.
    function _paymentOp(address wallet, uint256 ownerKey) internal view returns (PackedUserOperation memory op) {
        address[] memory to = new address[](2);
        uint256[] memory amounts = new uint256[](2);
        (to[0], to[1], amounts[0], amounts[1]) = (merchant, feeRecipient, 10e18, 1e17);
        Execution[] memory calls = new Execution[](2);
        calls[0] = Execution(address(usdt), 0, abi.encodeCall(TestUSDT.approve, (address(relayer), 10e18 + 1e17)));
        calls[1] = Execution(address(relayer), 0, abi.encodeCall(Relayer.payBatch, (address(usdt), to, amounts)));
        op = _userOp(wallet, _batch(calls));
        op = _sponsor(op, paymaster, pmSignerKey, uint48(block.timestamp + 300), 0);
        op = _signUserOp191(op, ownerKey);
    }

    function _measurePayment(string memory name, PackedUserOperation memory op, address wallet) internal {
        vm.recordLogs();
        _handle(op);
        uint256 handleOpsGas = vm.snapshotGasLastCall("userop", string.concat(name, "_handleOps"));
        (bool success, uint256 actualGasUsed) = _userOpResult(vm.getRecordedLogs());
        assertTrue(success);
        vm.snapshotValue("userop", string.concat(name, "_actualGasUsed"), actualGasUsed);
        console.log(string.concat(name, " handleOps gas:"), handleOpsGas);
        console.log(string.concat(name, " UserOperationEvent.actualGasUsed:"), actualGasUsed);
        assertEq(usdt.balanceOf(merchant), 10e18 + 1);
        assertEq(usdt.balanceOf(feeRecipient), 1e17 + 1);
        assertEq(usdt.balanceOf(wallet), 89e17);
        assertEq(wallet.balance, 0);
    }

    function test_gas_smartWalletPaymentUserOp() public {
        (address owner, uint256 ownerKey) = makeAddrAndKey("walletOwner");
        address wallet = factory.createAccount(owner, bytes32(0));
        usdt.mint(wallet, 19e18);
        _measurePayment("payment", _paymentOp(wallet, ownerKey), wallet);
    }

    function test_gas_smartWalletFirstPaymentWithDeployment() public {
        (address owner, uint256 ownerKey) = makeAddrAndKey("walletOwner");
        address wallet = factory.getAddress(owner, bytes32(0));
        usdt.mint(wallet, 19e18);
        PackedUserOperation memory op = _paymentOp(wallet, ownerKey);
        op = _withInitCode(op, owner, bytes32(0));
        op = _sponsor(op, paymaster, pmSignerKey, uint48(block.timestamp + 300), 0);
        op = _signUserOp191(op, ownerKey);
        _measurePayment("firstPaymentWithDeploy", op, wallet);
    }
}
