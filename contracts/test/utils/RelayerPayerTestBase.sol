// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {RelayerTestBase} from "./RelayerTestBase.sol";
import {TestUSDT} from "../../test-tokens/TestUSDT.sol";

/// @dev ERC-1271 payer that accepts signatures of its owner key (or nothing, when `rejectAll`).
contract MockContractWallet is IERC1271 {
    address public immutable owner;
    bool public immutable rejectAll;

    constructor(address owner_, bool rejectAll_) {
        owner = owner_;
        rejectAll = rejectAll_;
    }

    function approve(TestUSDT token, address spender, uint256 amount) external {
        token.approve(spender, amount);
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        if (rejectAll || err != ECDSA.RecoverError.NoError || recovered != owner) return 0xffffffff;
        return IERC1271.isValidSignature.selector;
    }
}

/// @dev Token whose views revert or return garbage, to prove checkAuthorization never reverts.
contract BrokenToken {
    function balanceOf(address) external pure returns (uint256) {
        assembly {
            return(0, 1) // short return data
        }
    }

    function allowance(address, address) external pure returns (uint256) {
        revert("broken");
    }
}

/// A relayer with usdt and usdc whitelisted and a payer holding both, approved to the relayer.
abstract contract RelayerPayerTestBase is RelayerTestBase {
    uint256 internal constant SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;

    address internal payer;
    uint256 internal payerKey;
    address internal merchant = makeAddr("merchant");
    address internal facilitator = makeAddr("facilitator");

    function setUp() public {
        _deployRelayer();
        (payer, payerKey) = makeAddrAndKey("payer");
        usdt.mint(payer, 1_000e18);
        usdc.mint(payer, 1_000e6);
        vm.startPrank(payer);
        usdt.approve(address(relayer), type(uint256).max);
        usdc.approve(address(relayer), type(uint256).max);
        vm.stopPrank();
    }

    function _usdtAuth() internal view returns (Auth memory) {
        return Auth(address(usdt), payer, merchant, 10e18, block.timestamp - 60, block.timestamp + 60, keccak256("n1"));
    }
}
