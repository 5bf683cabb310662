// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "forge-std/Test.sol";
import {PrivacyPool, IUnshieldVerifier, ITokenWhitelist} from "../PrivacyPool.sol";
import {Relayer} from "../Relayer.sol";
import {TestUSDC} from "../test-tokens/TestUSDC.sol";

/// @dev forge cannot make proofs and proving per fuzz run would take minutes: these tests check the pool's
/// accounting with a verifier that accepts every proof. The real verifier is covered in PrivacyPool.t.sol.
contract AcceptAllVerifier is IUnshieldVerifier {
    function verifyProof(uint256[2] calldata, uint256[2][2] calldata, uint256[2] calldata, uint256[8] calldata)
        external
        pure
        returns (bool)
    {
        return true;
    }
}

abstract contract PoolFixture is Test {
    PrivacyPool internal pool;
    Relayer internal relayer;
    address internal owner = makeAddr("owner");

    function _deployPool() internal {
        relayer = new Relayer("relay402", "1", owner);
        pool = new PrivacyPool(new AcceptAllVerifier(), ITokenWhitelist(address(relayer)));
    }

    function _whitelistedToken() internal returns (TestUSDC token) {
        token = new TestUSDC();
        vm.prank(owner);
        relayer.setTokenWhitelisted(address(token), true);
    }

    function _proof() internal pure returns (PrivacyPool.Proof memory p) {}
}

contract PrivacyPoolFuzzTest is PoolFixture {
    TestUSDC internal token;
    address internal depositor = makeAddr("depositor");
    uint256 internal constant EDGE = 1 << 128;

    function setUp() public {
        _deployPool();
        token = _whitelistedToken();
        vm.prank(depositor);
        token.approve(address(pool), type(uint256).max);
    }

    /// Amounts just below, at and above 2^128 (and anywhere else): a shield holds exactly [1, 2^128).
    function testFuzz_shieldAmountAt2To128Edge(uint256 seed, bool nearEdge) public {
        uint256 amount = nearEdge ? EDGE - 4 + (seed % 8) : seed;
        token.mint(depositor, amount);
        vm.prank(depositor);
        if (amount == 0 || amount >= EDGE) {
            vm.expectRevert(PrivacyPool.InvalidAmount.selector);
            pool.shield(address(token), amount, 1);
            assertEq(token.balanceOf(address(pool)), 0);
            assertEq(pool.size(), 0);
        } else {
            (uint256 leafIndex,) = pool.shield(address(token), amount, 1);
            assertEq(leafIndex, 0);
            assertEq(token.balanceOf(address(pool)), amount);
            assertEq(token.balanceOf(depositor), 0);
        }
    }

    /// withdrawAmount and fee each below 2^128 are paid exactly; at or above it the pool refuses before paying.
    function testFuzz_unshieldAmountsAt2To128Edge(uint256 wSeed, uint256 fSeed, bool wNear, bool fNear) public {
        uint256 withdrawAmount = wNear ? EDGE - 4 + (wSeed % 8) : wSeed % (EDGE * 2);
        uint256 fee = fNear ? EDGE - 4 + (fSeed % 8) : fSeed % (EDGE * 2);
        // Fill the pool with notes of the largest amount so that any valid pair can be paid.
        token.mint(depositor, 4 * (EDGE - 1));
        for (uint256 i = 1; i <= 4; ++i) {
            vm.prank(depositor);
            pool.shield(address(token), EDGE - 1, i);
        }
        uint256 root = pool.currentRoot();
        address recipient = makeAddr("recipient");
        address feeRecipient = makeAddr("feeRecipient");
        if (withdrawAmount >= EDGE || fee >= EDGE) {
            vm.expectRevert(PrivacyPool.InvalidAmount.selector);
            pool.unshield(_proof(), root, 7, address(token), withdrawAmount, recipient, feeRecipient, fee, 9);
            assertEq(token.balanceOf(address(pool)), 4 * (EDGE - 1));
            assertFalse(pool.nullifierSpent(7));
        } else {
            uint256 changeIndex =
                pool.unshield(_proof(), root, 7, address(token), withdrawAmount, recipient, feeRecipient, fee, 9);
            assertEq(changeIndex, 4);
            assertEq(token.balanceOf(recipient), withdrawAmount);
            assertEq(token.balanceOf(feeRecipient), fee);
            assertEq(token.balanceOf(address(pool)), 4 * (EDGE - 1) - withdrawAmount - fee);
            assertTrue(pool.nullifierSpent(7));
        }
    }

    function test_unshieldWithAFalseProofReverts() public {
        PrivacyPool strict =
            new PrivacyPool(IUnshieldVerifier(address(new RejectAllVerifier())), ITokenWhitelist(address(relayer)));
        token.mint(depositor, 10);
        vm.startPrank(depositor);
        token.approve(address(strict), 10);
        strict.shield(address(token), 10, 1);
        vm.stopPrank();
        uint256 root = strict.currentRoot();
        vm.expectRevert(PrivacyPool.InvalidProof.selector);
        strict.unshield(_proof(), root, 7, address(token), 10, depositor, depositor, 0, 9);
        assertEq(token.balanceOf(address(strict)), 10);
    }

    function test_unshieldToTheZeroAddressReverts() public {
        token.mint(depositor, 10);
        vm.prank(depositor);
        pool.shield(address(token), 10, 1);
        uint256 root = pool.currentRoot();
        vm.expectRevert(PrivacyPool.ZeroAddress.selector);
        pool.unshield(_proof(), root, 7, address(token), 5, address(0), depositor, 1, 9);
        vm.expectRevert(PrivacyPool.ZeroAddress.selector);
        pool.unshield(_proof(), root, 7, address(token), 5, depositor, address(0), 1, 9);
    }
}

contract RejectAllVerifier is IUnshieldVerifier {
    function verifyProof(uint256[2] calldata, uint256[2][2] calldata, uint256[2] calldata, uint256[8] calldata)
        external
        pure
        returns (bool)
    {
        return false;
    }
}

/// @dev Random shields and unshields over two tokens, with the accept-all verifier.
contract PoolHandler is Test {
    PrivacyPool internal immutable pool;
    TestUSDC[2] internal tokens;
    address[3] internal actors = [address(0xA11CE), address(0xB0B), address(0xCA401)];
    uint256 internal nextField = 1;

    mapping(address token => uint256) public shielded;
    mapping(address token => uint256) public unshielded;
    uint256 public inserts;
    uint256 public spends;
    uint256 public doubleSpends;

    constructor(PrivacyPool pool_, TestUSDC token0, TestUSDC token1) {
        pool = pool_;
        tokens = [token0, token1];
        for (uint256 i; i < actors.length; ++i) {
            for (uint256 t; t < 2; ++t) {
                tokens[t].mint(actors[i], 1e50);
                vm.prank(actors[i]);
                tokens[t].approve(address(pool), type(uint256).max);
            }
        }
    }

    function shield(uint256 actorSeed, bool second, uint128 amount) external {
        amount = uint128(bound(amount, 1, type(uint128).max));
        TestUSDC token = tokens[second ? 1 : 0];
        vm.prank(actors[actorSeed % actors.length]);
        pool.shield(address(token), amount, nextField++);
        shielded[address(token)] += amount;
        ++inserts;
    }

    function unshield(bool second, uint256 withdrawAmount, uint256 fee, address recipient, bool reuseNullifier)
        external
    {
        TestUSDC token = tokens[second ? 1 : 0];
        uint256 balance = token.balanceOf(address(pool));
        withdrawAmount = bound(withdrawAmount, 0, balance > type(uint128).max ? type(uint128).max : balance);
        fee = bound(fee, 0, balance - withdrawAmount > type(uint128).max ? type(uint128).max : balance - withdrawAmount);
        if (recipient == address(0) || recipient == address(pool)) recipient = address(0xD00D);
        if (pool.size() == 0) return;
        uint256 root = pool.currentRoot();
        if (reuseNullifier && spends > 0) {
            // A spent nullifier never pays twice.
            try pool.unshield(
                _proof(), root, 1_000_000, address(token), withdrawAmount, recipient, recipient, fee, nextField++
            ) {
                doubleSpends++;
            } catch {}
            return;
        }
        pool.unshield(
            _proof(), root, 1_000_000 + spends, address(token), withdrawAmount, recipient, recipient, fee, nextField++
        );
        unshielded[address(token)] += withdrawAmount + fee;
        ++spends;
        ++inserts;
    }

    function tokenAt(uint256 i) external view returns (TestUSDC) {
        return tokens[i];
    }

    function _proof() internal pure returns (PrivacyPool.Proof memory p) {}
}

contract PrivacyPoolInvariantTest is PoolFixture {
    PoolHandler internal handler;

    function setUp() public {
        _deployPool();
        handler = new PoolHandler(pool, _whitelistedToken(), _whitelistedToken());
        targetContract(address(handler));
    }

    /// The pool holds, per token, exactly what was shielded minus what was unshielded (withdrawals and fees).
    function invariant_balancePerTokenIsShieldedMinusUnshielded() public view {
        for (uint256 i; i < 2; ++i) {
            address token = address(handler.tokenAt(i));
            assertEq(TestUSDC(token).balanceOf(address(pool)), handler.shielded(token) - handler.unshielded(token));
        }
    }

    function invariant_aSpentNullifierNeverPays() public view {
        assertEq(handler.doubleSpends(), 0);
    }

    /// Every shield and every unshield (its change note, even of 0) adds exactly one leaf.
    function invariant_everyShieldAndUnshieldInsertsOneLeaf() public view {
        assertEq(pool.size(), handler.inserts());
    }
}
