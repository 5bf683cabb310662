import { parseAbi } from "viem";

export const relayerAbi = parseAbi([
  "function transferWithAuthorization(address token, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function transferWithAuthorizationWithPermit(address token, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature, (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) permit)",
  "function checkAuthorization(address token, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) view returns (uint8 status, uint256 balance, uint256 allowance)",
  "function authorizationState(address from, bytes32 nonce) view returns (bool)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "function isTokenWhitelisted(address token) view returns (bool)",
  "function setTokenWhitelisted(address token, bool allowed)",
  "function payBatch(address token, address[] recipients, uint256[] amounts)",
  "function paused() view returns (bool)",
  "function erc1271GasLimit() view returns (uint256)",
  "function pause()",
  "function unpause()",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce, address token, address to, uint256 value)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

export const erc20Abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 amount) returns (bool)",
  "function transfer(address to, uint256 amount) returns (bool)",
  "function decimals() view returns (uint8)",
  "function mint(address to, uint256 amount)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

export const entryPointAbi = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function getNonce(address sender, uint192 key) view returns (uint256 nonce)",
  "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
]);

export const factoryAbi = parseAbi([
  "function createAccount(address owner, bytes32 salt) returns (address)",
  "function getAddress(address owner, bytes32 salt) view returns (address)",
  "function accountImplementation() view returns (address)",
]);

export const accountAbi = parseAbi([
  "function owner() view returns (address)",
  "function execute(bytes32 mode, bytes executionCalldata)",
]);

export const paymasterAbi = parseAbi([
  "function verifyingSigner() view returns (address)",
  "function setVerifyingSigner(address signer)",
  "function deposit() payable",
  "function getDeposit() view returns (uint256)",
]);
