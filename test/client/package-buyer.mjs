// Run by `node` in a fresh project where @relay402/client was installed from its packed tarball (package.test.ts):
// what a user of the published package does, with nothing of this repository on its import path. Prints one
// JSON line of what it paid, for the test to check on the chain.
import { createRelay402Client, deployWalletsFromEoa, getNetworkConfig, pay, payFromWallet } from "@relay402/client";
import {
  getIncognitoNetwork,
  memoryNoteStorage,
  packagedCircuit,
  shield,
  spendableNotes,
  unshield,
} from "@relay402/client/incognito";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, createWalletClient, defineChain, http, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const fresh = () => privateKeyToAccount(generatePrivateKey());
const salt = () => toHex(crypto.getRandomValues(new Uint8Array(32)));

const relay402 = createRelay402Client({ url: env("RELAY402_URL"), adminApiKey: env("ADMIN_API_KEY") });
const config = await getNetworkConfig(relay402, "bsc");
const chain = defineChain({
  id: config.chainId,
  name: "bsc",
  nativeCurrency: { name: "native", symbol: "NATIVE", decimals: 18 },
  rpcUrls: { default: { http: [env("BSC_RPC_URL")] } },
});
const signer = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(env("PAYER_KEY")) });
const publicClient = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
const token = config.tokens[0];
const unit = 10n ** BigInt(token.decimals);
const out = { token: token.address };

// An EOA payment: approve the relayer, sign the authorization, verify, settle.
const eoaTo = fresh().address;
await pay(relay402, { signer, publicClient, network: "bsc", token: token.address, to: eoaTo, value: unit });
out.eoa = { to: eoaTo, value: unit.toString() };

// A smart wallet deployed and funded from the EOA, then a sponsored UserOp paying a merchant.
const deployWallet = async (owner, funding) => {
  const deployment = await deployWalletsFromEoa(relay402, {
    network: "bsc",
    owner,
    token: token.address,
    publicClient,
    salts: [salt()],
    fundingAmounts: funding > 0n ? [funding] : undefined,
    payer: signer,
  });
  return deployment.settlement.wallets[0].address;
};
const wallet = await deployWallet(signer.account.address, 10n * unit);
const merchant = fresh().address;
const walletPayment = await payFromWallet(relay402, {
  owner: signer,
  wallet,
  network: "bsc",
  token: token.address,
  transfers: [{ to: merchant, amount: 2n * unit }],
});
out.wallet = { wallet, to: merchant, value: (2n * unit).toString(), fee: walletPayment.verify.feeAmount };

// Incognito through the subpath: shield 5 from the funded wallet, unshield 2 from a fresh owner's empty wallet,
// proved here with snarkjs and the circuit the package ships.
const storage = memoryNoteStorage();
await shield(relay402, { owner: signer, wallet, network: "bsc", token: token.address, amount: 5n * unit, storage });
const ownerB = createWalletClient({ chain, transport: http(), account: fresh() });
const walletB = await deployWallet(ownerB.account.address, 0n);
const [note] = await spendableNotes(storage, "bsc", token.address);
const recipient = fresh().address;
await unshield(relay402, {
  owner: ownerB,
  wallet: walletB,
  network: "bsc",
  note,
  withdrawAmount: 2n * unit,
  recipient,
  storage,
});
// The circuit the unshield proved with: the package's own, read from node_modules, when it is the pool's setup.
const circuit = await packagedCircuit();
out.incognito = {
  to: recipient,
  value: (2n * unit).toString(),
  packagedCircuit: { id: circuit.id, zkeyBytes: circuit.zkey.length },
  poolCircuit: (await getIncognitoNetwork(relay402, "bsc")).incognito.circuitId,
};

// An x402 purchase with x402's own fetch wrapper, from a shop whose facilitator is relay402.
const buyer = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(env("X402_PAYER_KEY")) });
buyer.setSpendControls({ allowedAssets: true }); // the devnet's token is not among x402's default assets
const response = await wrapFetchWithPayment(fetch, buyer)(env("ITEM_URL"));
out.x402 = { status: response.status, body: await response.text() };

console.log(JSON.stringify(out));
