// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {PackedUserOperation} from "@openzeppelin/contracts/interfaces/IERC4337.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {IERC7579Validator, MODULE_TYPE_VALIDATOR} from "@openzeppelin/contracts/interfaces/draft-IERC7579.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {AATestBase} from "./utils/AATestBase.sol";
import {Account as SmartAccount} from "../Account.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// @dev Accepts any ERC-1271 signature whose inner part is "module-ok".
contract AcceptingValidator is IERC7579Validator {
    function onInstall(bytes calldata) external {}

    function onUninstall(bytes calldata) external {}

    function isModuleType(uint256 moduleTypeId) external pure returns (bool) {
        return moduleTypeId == MODULE_TYPE_VALIDATOR;
    }

    function validateUserOp(PackedUserOperation calldata, bytes32) external pure returns (uint256) {
        return 1;
    }

    function isValidSignatureWithSender(address, bytes32, bytes calldata signature) external pure returns (bytes4) {
        return keccak256(signature) == keccak256("module-ok") ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// @dev ERC-1271 answers of the account: ERC-7739 only, so an owner signature is bound to one wallet.
/// The app below signs a Permit2-like message whose digest does not name the wallet.
contract AccountErc1271Test is AATestBase {
    bytes4 internal constant MAGIC = IERC1271.isValidSignature.selector;
    bytes4 internal constant INVALID = bytes4(0xffffffff);
    string internal constant TRANSFER_TYPE = "Transfer(address token,uint256 amount,uint256 nonce)";

    address internal owner;
    uint256 internal ownerKey;
    SmartAccount internal walletA;
    SmartAccount internal walletB;
    bytes32 internal appSeparator;
    bytes32 internal contentsHash;
    bytes32 internal appHash;

    function setUp() public override {
        super.setUp();
        (owner, ownerKey) = makeAddrAndKey("owner");
        walletA = SmartAccount(payable(factory.createAccount(owner, bytes32(0))));
        walletB = SmartAccount(payable(factory.createAccount(owner, bytes32(uint256(1)))));
        appSeparator = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
                keccak256("Permit2"),
                block.chainid,
                makeAddr("permit2")
            )
        );
        contentsHash = keccak256(abi.encode(keccak256(bytes(TRANSFER_TYPE)), makeAddr("token"), 1e18, 0));
        appHash = MessageHashUtils.toTypedDataHash(appSeparator, contentsHash);
    }

    /// @dev The wallet's EIP-712 domain as a signer's software builds it, independently of the contract.
    function _walletDomainBytes(address wallet) internal view returns (bytes memory) {
        return abi.encode(keccak256("relay402 Account"), keccak256("1"), block.chainid, wallet, bytes32(0));
    }

    function _walletSeparator(address wallet) internal view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256("relay402 Account"),
                    keccak256("1"),
                    block.chainid,
                    wallet
                )
            );
    }

    /// @dev ERC-7739 TypedDataSign: the app's typed data nested in a struct carrying `wallet`'s domain.
    function _signNested(
        uint256 key,
        address wallet,
        bytes32 separator,
        bytes32 contents,
        string memory contentsType
    ) internal view returns (bytes memory) {
        bytes memory contentsName;
        for (uint256 i; bytes(contentsType)[i] != "("; ++i) contentsName = bytes.concat(contentsName, bytes(contentsType)[i]);
        bytes32 typeHash = keccak256(
            abi.encodePacked(
                "TypedDataSign(",
                contentsName,
                " contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)",
                contentsType
            )
        );
        bytes32 structHash = keccak256(abi.encodePacked(typeHash, contents, _walletDomainBytes(wallet)));
        bytes memory signature = _sign(key, MessageHashUtils.toTypedDataHash(separator, structHash));
        return abi.encodePacked(signature, separator, contents, contentsType, uint16(bytes(contentsType).length));
    }

    function test_eip712DomainIsEachClonesOwn() public view {
        (, string memory name, string memory version, uint256 chainId, address verifying, , ) = IERC5267(address(walletA)).eip712Domain();
        assertEq(name, "relay402 Account");
        assertEq(version, "1");
        assertEq(chainId, block.chainid);
        assertEq(verifying, address(walletA));
        (, , , , address verifyingB, , ) = IERC5267(address(walletB)).eip712Domain();
        assertEq(verifyingB, address(walletB));
    }

    function test_nestedTypedDataValidOnlyForTheWalletItNames() public view {
        bytes memory forA = _signNested(ownerKey, address(walletA), appSeparator, contentsHash, TRANSFER_TYPE);
        assertEq(walletA.isValidSignature(appHash, forA), MAGIC);
        assertEq(walletB.isValidSignature(appHash, forA), INVALID, "replayed on the owner's other wallet");
        // Nor does its inner signature stand for the owner's own (EOA) signature of the app's message.
        bytes memory inner = new bytes(65);
        for (uint256 i; i < 65; ++i) inner[i] = forA[i];
        (address recovered, , ) = ECDSA.tryRecover(appHash, inner);
        assertTrue(recovered != owner);
        assertEq(walletA.isValidSignature(appHash, inner), INVALID);
    }

    function test_nestedTypedDataForAnotherHashRefused() public view {
        bytes memory forA = _signNested(ownerKey, address(walletA), appSeparator, contentsHash, TRANSFER_TYPE);
        assertEq(walletA.isValidSignature(keccak256("another message"), forA), INVALID);
    }

    function test_rawOwnerSignatureRefused() public view {
        assertEq(walletA.isValidSignature(appHash, _sign(ownerKey, appHash)), INVALID);
        assertEq(walletB.isValidSignature(appHash, _sign(ownerKey, appHash)), INVALID);
        bytes32 personal = MessageHashUtils.toEthSignedMessageHash(appHash);
        assertEq(walletA.isValidSignature(appHash, _sign(ownerKey, personal)), INVALID);
        assertEq(walletA.isValidSignature(personal, _sign(ownerKey, personal)), INVALID);
    }

    function test_nestedPersonalSignValidOnlyForTheWalletItNames() public view {
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(bytes("hello"));
        bytes32 personalSign = keccak256(abi.encode(keccak256("PersonalSign(bytes prefixed)"), hash));
        bytes memory forA = _sign(ownerKey, MessageHashUtils.toTypedDataHash(_walletSeparator(address(walletA)), personalSign));
        assertEq(walletA.isValidSignature(hash, forA), MAGIC);
        assertEq(walletB.isValidSignature(hash, forA), INVALID);
    }

    function test_otherSignerRefused() public {
        (, uint256 otherKey) = makeAddrAndKey("other");
        bytes memory forged = _signNested(otherKey, address(walletA), appSeparator, contentsHash, TRANSFER_TYPE);
        assertEq(walletA.isValidSignature(appHash, forged), INVALID);
        assertEq(walletA.isValidSignature(appHash, hex"1234"), INVALID);
    }

    function testFuzz_randomSignerNeverValid(uint256 key) public view {
        key = bound(key, 1, SECP256K1_ORDER - 1);
        vm.assume(vm.addr(key) != owner);
        bytes memory forged = _signNested(key, address(walletA), appSeparator, contentsHash, TRANSFER_TYPE);
        assertEq(walletA.isValidSignature(appHash, forged), INVALID);
    }

    function test_erc7739SupportDetection() public view {
        bytes32 probe = 0x7739773977397739773977397739773977397739773977397739773977397739;
        assertEq(walletA.isValidSignature(probe, ""), bytes4(0x77390001));
    }

    function test_installedValidatorModuleStillHonored() public {
        AcceptingValidator module = new AcceptingValidator();
        bytes memory viaModule = abi.encodePacked(address(module), "module-ok");
        assertEq(walletA.isValidSignature(appHash, viaModule), INVALID);
        vm.prank(ENTRYPOINT_V07);
        walletA.installModule(MODULE_TYPE_VALIDATOR, address(module), "");
        assertEq(walletA.isValidSignature(appHash, viaModule), MAGIC);
        assertEq(walletA.isValidSignature(appHash, abi.encodePacked(address(module), "module-no")), INVALID);
        // The owner's ERC-7739 path is unaffected by the module.
        bytes memory forA = _signNested(ownerKey, address(walletA), appSeparator, contentsHash, TRANSFER_TYPE);
        assertEq(walletA.isValidSignature(appHash, forA), MAGIC);
    }

    function _relayerSeparator(Relayer relayer) internal view returns (bytes32) {
        (, string memory name, string memory version, uint256 chainId, address verifying, , ) = relayer.eip712Domain();
        return
            keccak256(
                abi.encode(
                    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                    keccak256(bytes(name)),
                    keccak256(bytes(version)),
                    chainId,
                    verifying
                )
            );
    }

    /// @dev The wallet pays through Relayer.transferWithAuthorization: the relayer's typed data nested for the wallet.
    function test_walletPaysViaRelayerWithErc7739() public {
        Relayer relayer = new Relayer("relay402", "1", address(this));
        TestUSDT usdt = new TestUSDT();
        relayer.setTokenWhitelisted(address(usdt), true);
        usdt.mint(address(walletA), 5e18);
        vm.prank(ENTRYPOINT_V07);
        walletA.execute(
            MODE_BATCH,
            abi.encode(_call(address(usdt), 0, abi.encodeCall(TestUSDT.approve, (address(relayer), 5e18))))
        );

        address merchant = makeAddr("merchant");
        bytes32 nonce = keccak256("wallet-nonce");
        string memory contentsType = "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";
        assertEq(keccak256(bytes(contentsType)), relayer.TRANSFER_WITH_AUTHORIZATION_TYPEHASH());
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(bytes(contentsType)),
                address(usdt),
                address(walletA),
                merchant,
                5e18,
                0,
                block.timestamp,
                nonce
            )
        );
        bytes32 separator = _relayerSeparator(relayer);

        bytes memory raw = _sign(ownerKey, MessageHashUtils.toTypedDataHash(separator, structHash));
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.transferWithAuthorization(address(usdt), address(walletA), merchant, 5e18, 0, block.timestamp, nonce, raw);

        bytes memory sig = _signNested(ownerKey, address(walletA), separator, structHash, contentsType);
        relayer.transferWithAuthorization(address(usdt), address(walletA), merchant, 5e18, 0, block.timestamp, nonce, sig);
        assertEq(usdt.balanceOf(merchant), 5e18);
    }
}
