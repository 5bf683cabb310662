// The bench's baseline: our ERC-7579 wallet (contracts/Account.sol) as a viem `toSmartAccount` custom account and
// our paymaster as a permissionless `paymaster` object, so a plain `createSmartAccountClient(...).sendUserOperation`
// can send the same batch through the same bundler without relay402.

import { encodeBatchExecution } from "@relay402/client/wire/execution";
import type { UserOp } from "@relay402/client/wire/user-operation";
import { createSmartAccountClient } from "permissionless";
import { createPimlicoClient } from "permissionless/clients/pimlico";
import type { Address, Chain, PublicClient, Transport, TypedData, TypedDataDefinition } from "viem";
import { http, zeroHash } from "viem";
import {
  entryPoint07Abi,
  type GetPaymasterDataParameters,
  type GetPaymasterStubDataReturnType,
  getUserOperationHash,
  toSmartAccount,
} from "viem/account-abstraction";
import type { LocalAccount, PrivateKeyAccount } from "viem/accounts";
import { readContract } from "viem/actions";
import {
  hashMessage as hashErc7739Message,
  hashTypedData as hashErc7739TypedData,
  wrapTypedDataSignature,
} from "viem/experimental/erc7739";
import {
  encodePaymasterData,
  paymasterHash,
  STUB_PAYMASTER_SIGNATURE,
  type ValidityWindow,
} from "../../src/userops/paymaster-data";
import { STUB_ACCOUNT_SIGNATURE } from "../../src/userops/sponsor";

/** The wallet, already deployed at `address` (so no factory args), validated by its single ECDSA owner. */
export function toErc7579Account(parameters: {
  client: PublicClient<Transport, Chain>;
  address: Address;
  owner: PrivateKeyAccount;
  entryPoint: Address;
}) {
  const { client, address, owner } = parameters;
  const entryPoint = { abi: entryPoint07Abi, address: parameters.entryPoint, version: "0.7" as const };
  const verifierDomain = {
    name: "relay402 Account",
    version: "1",
    chainId: client.chain.id,
    verifyingContract: address,
    salt: zeroHash,
  };
  return toSmartAccount({
    client,
    entryPoint,
    getAddress: async () => address,
    getFactoryArgs: async () => ({ factory: undefined, factoryData: undefined }),
    // Key 0, as relay402 uses: the key's upper 20 bytes select a validator module, and this account's owner
    // path is the one with none (viem's default key manager would pass a Date.now() key).
    getNonce: () =>
      readContract(client, {
        abi: entryPoint07Abi,
        address: entryPoint.address,
        functionName: "getNonce",
        args: [address, 0n],
      }),
    encodeCalls: async (calls) => encodeBatchExecution(calls.map((call) => ({ ...call, data: call.data ?? "0x" }))),
    getStubSignature: async () => STUB_ACCOUNT_SIGNATURE,
    // Account.sol accepts the owner's signature over the v0.7 userOpHash raw or as an EIP-191 message.
    async signUserOperation({ chainId = client.chain.id, ...userOperation }) {
      const hash = getUserOperationHash({
        chainId,
        entryPointAddress: entryPoint.address,
        entryPointVersion: "0.7",
        userOperation: { ...userOperation, sender: address },
      });
      return owner.signMessage({ message: { raw: hash } });
    },
    // isValidSignature takes ERC-7739 signatures only: the owner signs a hash bound to this wallet's EIP-712 domain.
    signMessage: ({ message }) => owner.sign({ hash: hashErc7739Message({ message, verifierDomain }) }),
    signTypedData: async (parameters) => {
      const typedData = parameters as TypedDataDefinition<TypedData, string>;
      const hash = hashErc7739TypedData({ ...typedData, verifierDomain });
      return wrapTypedDataSignature({ ...typedData, signature: await owner.sign({ hash }) });
    },
  });
}

/**
 * Our verifying paymaster as permissionless's `paymaster` option: stub data of the right length for estimation,
 * then a signature (src/userops/paymaster-data.ts) over the final gas fields, with the margin relay402's
 * buildSponsoredUserOp puts on the paymaster's verification gas.
 */
export function verifyingPaymaster(parameters: { paymaster: Address; signer: LocalAccount; validitySeconds: number }) {
  const window = (): ValidityWindow => ({
    validUntil: Math.floor(Date.now() / 1000) + parameters.validitySeconds,
    validAfter: 0,
  });
  return {
    // No postOp gas here: like relay402, leave both paymaster gas limits to the bundler's estimate.
    getPaymasterStubData: async () =>
      ({
        paymaster: parameters.paymaster,
        paymasterData: encodePaymasterData(window(), STUB_PAYMASTER_SIGNATURE),
      }) as GetPaymasterStubDataReturnType,
    async getPaymasterData(request: GetPaymasterDataParameters) {
      if (request.initCode !== undefined || request.factory)
        throw new Error("the bench paymaster sponsors v0.7 UserOps of deployed wallets only");
      const estimated = request.paymasterVerificationGasLimit ?? 0n;
      const paymasterVerificationGasLimit = estimated > 0n ? (estimated * 12n) / 10n : 60_000n;
      const op: UserOp = {
        sender: request.sender,
        nonce: request.nonce,
        callData: request.callData,
        callGasLimit: request.callGasLimit ?? 0n,
        verificationGasLimit: request.verificationGasLimit ?? 0n,
        preVerificationGas: request.preVerificationGas ?? 0n,
        maxFeePerGas: request.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
        paymaster: parameters.paymaster,
        paymasterVerificationGasLimit,
        paymasterPostOpGasLimit: request.paymasterPostOpGasLimit ?? 0n,
        paymasterData: "0x",
        signature: "0x",
      };
      const validity = window();
      const hash = paymasterHash(op, request.chainId, parameters.paymaster, validity);
      const signature = await parameters.signer.signMessage({ message: { raw: hash } });
      return {
        paymaster: parameters.paymaster,
        paymasterData: encodePaymasterData(validity, signature),
        paymasterVerificationGasLimit,
        paymasterPostOpGasLimit: op.paymasterPostOpGasLimit,
      };
    },
  };
}

/** A permissionless smart account client for one wallet: fees from `pimlico_getUserOperationGasPrice` ("fast"). */
export async function permissionlessWalletClient(parameters: {
  client: PublicClient<Transport, Chain>;
  bundlerUrl: string;
  wallet: Address;
  owner: PrivateKeyAccount;
  entryPoint: Address;
  paymaster: ReturnType<typeof verifyingPaymaster>;
}) {
  const pimlico = createPimlicoClient({
    chain: parameters.client.chain,
    transport: http(parameters.bundlerUrl),
    entryPoint: { address: parameters.entryPoint, version: "0.7" },
  });
  return createSmartAccountClient({
    account: await toErc7579Account({
      client: parameters.client,
      address: parameters.wallet,
      owner: parameters.owner,
      entryPoint: parameters.entryPoint,
    }),
    chain: parameters.client.chain,
    client: parameters.client,
    bundlerTransport: http(parameters.bundlerUrl),
    paymaster: parameters.paymaster,
    userOperation: { estimateFeesPerGas: async () => (await pimlico.getUserOperationGasPrice()).fast },
  });
}
