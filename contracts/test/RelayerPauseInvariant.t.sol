// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {Relayer} from "../Relayer.sol";
import {RelayerAuthorizations} from "../relayer/RelayerAuthorizations.sol";
import {TestUSDT} from "../test-tokens/TestUSDT.sol";

/// @dev The owner whitelists, delists, pauses and unpauses in any order; the model is the plain meaning of the
/// two settings. The relayer keeps a copy of the pause in every token's word (one storage read per payment),
/// so a copy missed by any sequence would let a payment through a pause or refuse an open token.
contract RelayerPauseHandler is Test {
    Relayer internal immutable relayer;
    TestUSDT[3] internal tokens;
    mapping(address token => bool) public modelWhitelisted;
    bool public modelPaused;

    constructor(Relayer relayer_, address payer) {
        relayer = relayer_;
        for (uint256 i; i < tokens.length; ++i) {
            tokens[i] = new TestUSDT();
            tokens[i].mint(payer, 1e30);
            vm.prank(payer);
            tokens[i].approve(address(relayer), type(uint256).max);
        }
    }

    function token(uint256 i) external view returns (TestUSDT) {
        return tokens[i];
    }

    function setWhitelisted(uint8 tokenSeed, bool allowed) external {
        TestUSDT t = tokens[tokenSeed % tokens.length];
        relayer.setTokenWhitelisted(address(t), allowed);
        modelWhitelisted[address(t)] = allowed;
    }

    function pause() external {
        if (modelPaused) return;
        relayer.pause();
        modelPaused = true;
    }

    function unpause() external {
        if (!modelPaused) return;
        relayer.unpause();
        modelPaused = false;
    }
}

contract RelayerPauseInvariantTest is Test {
    Relayer internal relayer;
    RelayerPauseHandler internal handler;
    address internal payer = makeAddr("payer");
    address internal merchant = makeAddr("merchant");

    function setUp() public {
        relayer = new Relayer("relay402", "1", address(this));
        handler = new RelayerPauseHandler(relayer, payer);
        relayer.transferOwnership(address(handler));
        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](3);
        selectors[0] = RelayerPauseHandler.setWhitelisted.selector;
        selectors[1] = RelayerPauseHandler.pause.selector;
        selectors[2] = RelayerPauseHandler.unpause.selector;
        targetSelector(FuzzSelector(address(handler), selectors));
    }

    /// @dev A payment of one unit goes through exactly when the token is whitelisted and nothing is paused, and a
    /// refusal names the pause first, as before the flags were packed.
    function invariant_paymentOpenExactlyWhenWhitelistedAndNotPaused() public {
        assertEq(relayer.paused(), handler.modelPaused());
        address[] memory to = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        (to[0], amounts[0]) = (merchant, 1);
        for (uint256 i; i < 3; ++i) {
            address t = address(handler.token(i));
            bool whitelisted = handler.modelWhitelisted(t);
            assertEq(relayer.isTokenWhitelisted(t), whitelisted);
            if (handler.modelPaused()) vm.expectRevert(Pausable.EnforcedPause.selector);
            else if (!whitelisted) vm.expectRevert(abi.encodeWithSelector(RelayerAuthorizations.TokenNotWhitelisted.selector, t));
            vm.prank(payer);
            relayer.payBatch(t, to, amounts);
        }
    }
}
