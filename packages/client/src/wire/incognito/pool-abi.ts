import { parseAbi } from "viem";

/** contracts/PrivacyPool.sol, as the service and the client call it and read its events. */
export const privacyPoolAbi = parseAbi([
  "struct Proof { uint256[2] a; uint256[2][2] b; uint256[2] c; }",
  "function shield(address token, uint256 amount, uint256 precommitment) returns (uint256 leafIndex, uint256 commitment)",
  "function unshield(Proof proof, uint256 root, uint256 nullifierHash, address token, uint256 withdrawAmount, address recipient, address feeRecipient, uint256 fee, uint256 changeCommitment) returns (uint256 changeLeafIndex)",
  "function isKnownRoot(uint256 root) view returns (bool)",
  "function nullifierSpent(uint256 nullifierHash) view returns (bool)",
  "function currentRoot() view returns (uint256)",
  "function size() view returns (uint256)",
  "function depth() view returns (uint256)",
  "function verifier() view returns (address)",
  "function whitelist() view returns (address)",
  "function ROOT_HISTORY_SIZE() view returns (uint256)",
  "event LeafInserted(uint256 indexed leafIndex, uint256 commitment, uint256 root)",
  "event Shielded(address indexed token, address indexed from, uint256 amount, uint256 leafIndex, uint256 commitment)",
  "event Unshielded(address indexed token, address indexed recipient, uint256 withdrawAmount, address feeRecipient, uint256 fee, uint256 nullifierHash, uint256 changeLeafIndex, uint256 changeCommitment)",
  "error TokenNotWhitelisted(address token)",
  "error InvalidAmount()",
  "error InvalidPrecommitment()",
  "error AmountNotReceived(uint256 expected, uint256 received)",
  "error TreeFull()",
  "error UnknownRoot(uint256 root)",
  "error NullifierAlreadySpent(uint256 nullifierHash)",
  "error InvalidProof()",
  "error ZeroAddress()",
  "error LeafAlreadyExists()",
]);
