// bench:x402's gas rows for relay402's own EOA body: five settles through the relayer per allowance kind (a finite
// allowance, whose update costs gas, and the maximum, which the token leaves alone), the median of their receipts.
import { type Address, maxUint256, type PrivateKeyAccount, type PublicClient } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { eoaPaymentBody } from "./eoa-payment-body";
import { postJson } from "./load";
import { median } from "./stats";

type Deps = {
  /** Gives a new payer tokens and an allowance to the relayer. */
  fund(key: `0x${string}`, amount: bigint, allowance?: bigint): Promise<PrivateKeyAccount>;
  settleUrl: string;
  relayer: Address;
  usdc: Address;
  merchant: Address;
  chainId: number;
  publicClient: PublicClient;
  amount: bigint;
};

export async function relayerGasRows(deps: Deps) {
  const rows: { key: string; label: string; gas: number; refused?: string }[] = [];
  for (const [key, label, allowance] of [
    ["gas.relayer.finite", "gas per settle, relay402 body via the relayer, finite allowance", 10n ** 12n],
    ["gas.relayer.max", "gas per settle, relay402 body via the relayer, max allowance", maxUint256],
  ] as const) {
    const payer = await deps.fund(generatePrivateKey(), 10n ** 12n, allowance);
    const gas: number[] = [];
    let refused: string | undefined;
    for (let i = 0; i < 5; i++) {
      const body = await eoaPaymentBody(payer, deps.relayer, deps.usdc, {
        network: "base",
        chainId: deps.chainId,
        to: deps.merchant,
        value: deps.amount,
      });
      const { status, json } = await postJson(deps.settleUrl, body, AbortSignal.timeout(30_000));
      if (status !== 200 || !json.transaction) {
        refused = `${label}: settle refused (${status} ${json.code ?? JSON.stringify(json).slice(0, 120)})`;
        break;
      }
      gas.push(Number((await deps.publicClient.getTransactionReceipt({ hash: json.transaction })).gasUsed));
    }
    rows.push({ key, label, gas: median(gas), ...(refused ? { refused } : {}) });
  }
  return rows;
}
