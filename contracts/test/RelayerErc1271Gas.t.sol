// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {RelayerTestBase} from "./utils/RelayerTestBase.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// @dev ERC-1271 payer that accepts its owner's signatures, after burning `burn` gas (0: a normal wallet).
contract GasBurningWallet is IERC1271 {
    address public immutable owner;
    uint256 public immutable burn;

    constructor(address owner_, uint256 burn_) {
        owner = owner_;
        burn = burn_;
    }

    function approve(TestUSDT token, address spender, uint256 amount) external {
        token.approve(spender, amount);
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        uint256 stopAt = gasleft() > burn ? gasleft() - burn : 0;
        while (gasleft() > stopAt) {}
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        if (err != ECDSA.RecoverError.NoError || recovered != owner) return 0xffffffff;
        return IERC1271.isValidSignature.selector;
    }
}

/// @dev The relayer gives a contract payer's signature check at most erc1271GasLimit gas: the executor pays for it.
contract RelayerErc1271GasTest is RelayerTestBase {
    address internal owner;
    uint256 internal ownerKey;
    address internal merchant = makeAddr("merchant");

    function setUp() public {
        _deployRelayer();
        (owner, ownerKey) = makeAddrAndKey("walletOwner");
    }

    function _wallet(uint256 burn) internal returns (GasBurningWallet wallet) {
        wallet = new GasBurningWallet(owner, burn);
        usdt.mint(address(wallet), 100e18);
        wallet.approve(usdt, address(relayer), type(uint256).max);
    }

    function _auth(address from) internal view returns (Auth memory) {
        return Auth(address(usdt), from, merchant, 10e18, block.timestamp - 60, block.timestamp + 60, keccak256("n"));
    }

    function test_defaultLimitIs100k() public view {
        assertEq(relayer.erc1271GasLimit(), 100_000);
        assertEq(relayer.DEFAULT_ERC1271_GAS_LIMIT(), 100_000);
    }

    function test_normalErc1271WalletPasses() public {
        GasBurningWallet wallet = _wallet(0);
        Auth memory a = _auth(address(wallet));
        bytes memory sig = _sign(ownerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_OK());
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_walletBurningJustUnderTheLimitPasses() public {
        GasBurningWallet wallet = _wallet(80_000);
        Auth memory a = _auth(address(wallet));
        bytes memory sig = _sign(ownerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_OK());
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);
    }

    function test_gasBurningWalletIsRefused() public {
        GasBurningWallet wallet = _wallet(1_000_000);
        Auth memory a = _auth(address(wallet));
        bytes memory sig = _sign(ownerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_BAD_SIGNATURE());
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 0);
    }

    function test_gasBurningWalletCostsTheSubmitterAtMostTheLimit() public {
        GasBurningWallet wallet = _wallet(5_000_000);
        Auth memory a = _auth(address(wallet));
        bytes memory sig = _sign(ownerKey, _digest(a));
        uint256 before = gasleft();
        try
            relayer.transferWithAuthorization{gas: 3_000_000}(
                a.token,
                a.from,
                a.to,
                a.value,
                a.validAfter,
                a.validBefore,
                a.nonce,
                sig
            )
        {
            fail();
        } catch {}
        assertLt(before - gasleft(), 100_000 + 60_000);
    }

    function test_gasBurningWalletCannotCancel() public {
        GasBurningWallet wallet = _wallet(1_000_000);
        bytes32 nonce = keccak256("c");
        bytes memory sig = _sign(ownerKey, _cancelDigest(address(wallet), nonce));
        vm.expectRevert(RelayerAuthorizations.InvalidSignature.selector);
        relayer.cancelAuthorization(address(wallet), nonce, sig);
        assertFalse(relayer.authorizationState(address(wallet), nonce));
    }

    function test_ownerRaisesTheLimitWithAnEvent() public {
        GasBurningWallet wallet = _wallet(500_000);
        Auth memory a = _auth(address(wallet));
        bytes memory sig = _sign(ownerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_BAD_SIGNATURE());

        vm.expectEmit(address(relayer));
        emit RelayerAuthorizations.Erc1271GasLimitUpdated(600_000);
        vm.prank(relayerOwner);
        relayer.setErc1271GasLimit(600_000);
        assertEq(relayer.erc1271GasLimit(), 600_000);
        assertEq(_check(a, sig), relayer.STATUS_OK());
    }

    function test_onlyOwnerSetsTheLimit() public {
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, address(this)));
        relayer.setErc1271GasLimit(10_000_000);
        assertEq(relayer.erc1271GasLimit(), 100_000);
    }

    function test_eoaSignaturesDoNotDependOnTheLimit() public {
        (address payer, uint256 payerKey) = makeAddrAndKey("payer");
        usdt.mint(payer, 100e18);
        vm.prank(payer);
        usdt.approve(address(relayer), type(uint256).max);
        vm.prank(relayerOwner);
        relayer.setErc1271GasLimit(0);
        Auth memory a = _auth(payer);
        bytes memory sig = _sign(payerKey, _digest(a));
        assertEq(_check(a, sig), relayer.STATUS_OK());
        _submit(a, sig);
        assertEq(usdt.balanceOf(merchant), 10e18);
    }
}
