// Incognito: shield tokens into the privacy pool from one smart wallet, then unshield part of them to a fresh
// address from another wallet, with a zero-knowledge proof made here on the client. The service sponsors both
// UserOps and never learns the note's secrets or which deposit the unshield spends; the notes are kept in a JSON
// file (NOTES_FILE, default ~/.relay402/incognito-notes.json: outside the repository, so that no commit carries
// it, and kept across runs, unlike the OS's temporary folder): whoever reads it can spend them.
// Run against the devnet: bun run dev, then bun examples/incognito.ts
//
// On the devnet one key pays both wallets' deployments, which links them on-chain; in real use the unshielding
// wallet should be fresh and unrelated to the shielding one (see the README's incognito walk-through).

import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { deployWalletsFromEoa, type SignerClient } from "@relay402/client";
import { shield, spendableNotes, unshield } from "@relay402/client/incognito";
import { jsonFileNoteStorage } from "@relay402/client/incognito/json-file";
import { type Address, createWalletClient, http, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { connect, type ExampleOptions, randomSalt, runExample } from "./setup";

export async function main(options: ExampleOptions & { notesFile?: string }) {
  const { relay402, signer, publicClient, token, log } = await connect(options);
  const unit = parseUnits("1", token.decimals);
  const notesFile = options.notesFile ?? process.env.NOTES_FILE ?? defaultNotesFile();
  mkdirSync(dirname(notesFile), { recursive: true, mode: 0o700 }); // a new folder: readable by its owner only
  const storage = jsonFileNoteStorage(notesFile);
  log(`notes (the secrets that spend the shielded tokens) are kept in ${notesFile}`);

  // Wallet A, owned by the key, funded with 20 tokens; wallet B, owned by a brand-new key, holds nothing.
  const deploy = async (owner: Address, funding: bigint) => {
    const deployment = await deployWalletsFromEoa(relay402, {
      network: options.network,
      owner,
      token: token.address,
      publicClient,
      salts: [randomSalt()],
      fundingAmounts: funding > 0n ? [funding] : undefined,
      payer: signer,
    });
    return deployment.settlement.wallets[0]!.address as Address;
  };
  const walletA = await deploy(signer.account.address, 20n * unit);
  const ownerB = createWalletClient({
    chain: signer.chain,
    transport: http(options.rpcUrl),
    account: privateKeyToAccount(generatePrivateKey()),
  }) as SignerClient;
  const walletB = await deploy(ownerB.account.address, 0n);
  log(`wallet A ${walletA} (funded), wallet B ${walletB} (empty, fresh owner)`);

  // Shield 10: the client makes the note, checks the UserOp shields exactly its precommitment, stores, signs.
  const shielded = await shield(relay402, {
    owner: signer,
    wallet: walletA,
    network: options.network,
    token: token.address,
    amount: 10n * unit,
    storage,
  });
  log(`shielded 10 ${token.symbol} (fee ${shielded.verify.feeAmount}) as leaf ${shielded.note.leafIndex}`);

  // Unshield 4 to a fresh address from wallet B: the tree is synced from the service's leaves and the proof made
  // here; the rest (10 − 4 − fee) becomes a change note, stored in the notes file.
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const [note] = await spendableNotes(storage, options.network, token.address);
  const unshielded = await unshield(relay402, {
    owner: ownerB,
    wallet: walletB,
    network: options.network,
    note: note!,
    withdrawAmount: 4n * unit,
    recipient,
    storage,
  });
  log(
    `unshielded 4 ${token.symbol} to ${recipient} (fee ${unshielded.verify.feeAmount}) in ${unshielded.settlement.txHash}; ` +
      `change note of ${unshielded.change.amount} at leaf ${unshielded.change.leafIndex}, kept in ${notesFile}`,
  );
  return {
    walletA,
    walletB,
    recipient,
    shielded: 10n * unit,
    shieldFee: BigInt(shielded.verify.feeAmount),
    withdrawn: 4n * unit,
    unshieldFee: BigInt(unshielded.verify.feeAmount),
    change: unshielded.change,
    notesFile,
  };
}

/** Where the notes go unless told: ~/.relay402/incognito-notes.json. */
export const defaultNotesFile = () => join(homedir(), ".relay402", "incognito-notes.json");

if (import.meta.main) await runExample(main);
