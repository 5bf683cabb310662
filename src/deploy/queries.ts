import { type Address, getAddress } from "viem";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import type { NetworkName } from "../networks";
import { masterSalt, walletAddresses } from "./addresses";
import type { DeployContext } from "./context";
import { type WalletInfo, walletInfo } from "./responses";

/** GET /wallet/:owner: the owner's wallets of live batches, the master wallet apart. */
export async function walletsOfOwner(ctx: DeployContext, owner: string, network?: string) {
  if (network) ctx.networks.get(network);
  const salt = masterSalt(ctx.config.masterSaltPrefix, owner);
  const infos = (await ctx.store.walletsOfOwner(owner, network)).map(({ batch, wallet }) => walletInfo(batch, wallet));
  if (infos.length === 0) throw new ApiError("not_found", `no wallets for owner ${getAddress(owner)}`);
  return { master: infos.filter((info) => info.salt === salt), sub: infos.filter((info) => info.salt !== salt) };
}

/** GET /wallet/:owner/master: computed address (the factory has the same address on every network) and its records. */
export async function masterWallet(ctx: DeployContext, owner: string) {
  const ownerAddress = getAddress(owner);
  const salt = masterSalt(ctx.config.masterSaltPrefix, ownerAddress);
  const network = ctx.networks.all()[0];
  if (!network) throw new ApiError("validation_error", "no network is enabled");
  let walletAddress: Address;
  try {
    [walletAddress] = (await walletAddresses(network.client, network.config.contracts.factory, ownerAddress, [
      salt,
    ])) as [Address];
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to compute the master wallet address", {
      reason: shortReason(error),
    });
  }
  const records = (await ctx.store.walletsOfOwner(ownerAddress)).filter(({ wallet }) => wallet.salt === salt);
  // One key per enabled network (decisions.md "Wallet deployment"): the address is computed, so each answers.
  const deployments = Object.fromEntries(
    ctx.networks.enabled.map((name) => {
      const found = records.find(({ wallet }) => wallet.network === name);
      return [name, found ? walletInfo(found.batch, found.wallet) : null];
    }),
  ) as Partial<Record<NetworkName, WalletInfo | null>>;
  return { ownerAddress, walletAddress, salt, deployments };
}
